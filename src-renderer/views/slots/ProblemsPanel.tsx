import { useSlice } from '../../store';

/** What the core could not hand back to a caller (a slot that would not unload, a failed prune…), newest first. */
export function ProblemsPanel() {
  const problems = useSlice('ui', (s) => s.problems);
  const logPath = useSlice('ui', (s) => s.status?.logPath ?? null);
  if (problems.length === 0) return <p className="muted">No problems reported.</p>;
  return (
    <div data-testid="problems">
      <ul className="problems">
        {[...problems].reverse().map((p, i) => (
          <li key={`${p.atWallMs}-${i}`}>
            <time>{new Date(p.atWallMs).toLocaleTimeString()}</time> <b>{p.topic}</b> {p.message}
          </li>
        ))}
      </ul>
      {logPath && <p className="muted">Every problem is also in {logPath}.</p>}
    </div>
  );
}
