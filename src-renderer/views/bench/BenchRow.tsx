import type { BenchProgress } from '../../store';

/** One benchmark's progress bar, its error if it failed, and a way to its run when done. */
export function BenchRow(props: { bench: BenchProgress; onOpenRuns(): void }) {
  const b = props.bench;
  const share = b.numTotal > 0 ? b.numDone / b.numTotal : 0;
  return (
    <div className="bench-row" data-testid="bench-progress" data-done={b.isDone}>
      <span>
        {b.kind} · {b.label}
      </span>
      <progress max={Math.max(1, b.numTotal)} value={b.numDone} aria-label={`${b.kind} progress`} />
      <span>
        {b.numDone}/{b.numTotal} ({(share * 100).toFixed(0)}%)
      </span>
      {b.error && <span className="notice error">{b.error}</span>}
      {b.isDone && b.runId && (
        <button type="button" data-testid="bench-open-runs" onClick={props.onOpenRuns}>
          {b.runIds.length > 1 ? `Compare ${b.runIds.length} arms` : 'See run'}
        </button>
      )}
    </div>
  );
}
