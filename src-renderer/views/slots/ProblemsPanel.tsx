import { whyUnusable } from '../../../src-main/runtime/model/listing-status';
import { useSlice } from '../../store/react';

/**
 * Everything that is wrong now or went wrong unseen: models that cannot run (and why), remote
 * endpoints that do not answer, then what the core could not hand back to a caller (a slot
 * that would not unload, a failed prune…), newest first. "No problems" only when all are empty.
 */
export function ProblemsPanel() {
  const problems = useSlice('ui', (s) => s.problems);
  const logPath = useSlice('ui', (s) => s.status?.logPath ?? null);
  const broken = useSlice('slots', (s) => s.models).filter((m) => m.status !== 'ok');
  const unreachable = useSlice('slots', (s) => s.endpoints).filter((e) => e.reachability === 'unreachable');
  if (problems.length === 0 && broken.length === 0 && unreachable.length === 0)
    return <p className="muted">No problems reported.</p>;
  return (
    <div data-testid="problems">
      <ul className="problems">
        {broken.map((m) => (
          <li key={m.modelId} data-testid="problem-model" title={m.path}>
            <b>model</b> {m.displayName}: {whyUnusable(m)}
          </li>
        ))}
        {unreachable.map((e) => (
          <li key={e.endpointId} data-testid="problem-endpoint">
            <b>endpoint</b> {e.name} ({e.baseUrl}) does not answer{e.lastError ? `: ${e.lastError}` : ''}
          </li>
        ))}
        {[...problems].reverse().map((p, i) => (
          <li key={`${p.atWallMs}-${i}`}>
            <time>{new Date(p.atWallMs).toLocaleTimeString()}</time> <b>{p.topic}</b> {p.message}
          </li>
        ))}
      </ul>
      {logPath && problems.length > 0 && <p className="muted">Every logged problem is also in {logPath}.</p>}
    </div>
  );
}
