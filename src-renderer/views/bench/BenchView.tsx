import { useState } from 'react';
import { useSlice } from '../../store/react';
import { BenchRow } from './BenchRow';
import { ExperimentPanel } from './ExperimentPanel';
import { NumberField } from '../../components/NumberField';
import { Notice, Panel } from '../../components/Panel';

/**
 * Bench: start the first-frame benchmark, a load replay or an experiment over one setting;
 * progress bars; results become runs (an experiment's arms open compared).
 */
export function BenchView() {
  const benches = useSlice('bench', (s) => s.benches);
  const error = useSlice('bench', (s) => s.error);
  const start = useSlice('bench', (s) => s.start);
  const setView = useSlice('ui', (s) => s.setView);
  const compareRuns = useSlice('ui', (s) => s.compareRuns);
  const [numRuns, setNumRuns] = useState<number | null>(5);
  const [numRequests, setNumRequests] = useState<number | null>(50);
  const [ratePerS, setRatePerS] = useState<number | null>(5);
  const optional = (value: number | null) => value ?? undefined;
  return (
    <div className="bench-view">
      <Panel title="First-frame benchmark" testId="bench-first-frame">
        <p className="muted">
          The default model's first word from cold (loading the model first) and already loaded: loading the
          model, reading your prompt, first word.
        </p>
        <NumberField label="runs" min={1} max={100} value={numRuns} onChange={setNumRuns} />
        <RunButton
          testId="bench-start-first-frame"
          onClick={() => start({ kind: 'first-frame', numRuns: optional(numRuns) })}
        />
      </Panel>
      <Panel title="Load replay" testId="bench-load">
        <p className="muted">
          Requests arriving at random around a set rate per second (Poisson arrivals); the Dashboard shows
          them live.
        </p>
        <NumberField label="requests" min={1} max={1000} value={numRequests} onChange={setNumRequests} />
        <NumberField label="rate/s" min={0.1} max={100} step={0.1} value={ratePerS} onChange={setRatePerS} />
        <RunButton
          testId="bench-start-load"
          onClick={() =>
            start({ kind: 'load', numRequests: optional(numRequests), ratePerS: optional(ratePerS) })
          }
        />
      </Panel>
      <ExperimentPanel onStart={start} />
      {error && <Notice tone="error">{error}</Notice>}
      <Panel title="Progress" className="wide">
        {benches.length === 0 ? (
          <p className="empty-chart">Nothing running.</p>
        ) : (
          benches.map((b) => (
            <BenchRow
              key={b.benchId}
              bench={b}
              onOpenRuns={() => (b.runIds.length > 1 ? compareRuns(b.runIds) : setView('runs'))}
            />
          ))
        )}
      </Panel>
    </div>
  );
}

function RunButton(props: { testId: string; onClick(): Promise<void> }) {
  return (
    <button type="button" className="primary" data-testid={props.testId} onClick={() => void props.onClick()}>
      Run
    </button>
  );
}
