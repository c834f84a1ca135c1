import type { BenchProgress } from '../../store/bench-store';

/** A benchmark's kind as the progress row names it. */
const KIND_WORDS: Record<NonNullable<BenchProgress['kind']>, string> = {
  'first-frame': 'first-frame benchmark',
  load: 'load test',
  experiment: 'experiment',
};

/** One benchmark's progress bar, its error if it failed, and a way to its run when done. */
export function BenchRow(props: { bench: BenchProgress; onOpenRuns(): void }) {
  const b = props.bench;
  const share = b.numTotal > 0 ? b.numDone / b.numTotal : 0;
  // A benchmark started elsewhere (another window, the API) is known by its progress label only.
  const name = b.kind ? `${KIND_WORDS[b.kind]} · ${b.label}` : b.label || 'a benchmark';
  return (
    <div className="bench-row" data-testid="bench-progress" data-done={b.isDone}>
      <span>{name}</span>
      <progress max={Math.max(1, b.numTotal)} value={b.numDone} aria-label={`${name}: progress`} />
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
