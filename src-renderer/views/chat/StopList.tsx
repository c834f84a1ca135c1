import { useState } from 'react';
import { SAMPLING_LIMITS } from '../../../src-main/runtime/sampling/limits';
import { useSlice } from '../../store/react';
import { readStopText, showStopText } from './stop-text';

const { maxCount, maxLength } = SAMPLING_LIMITS.stop;

/**
 * The conversation's stop strings: the answer ends before the first one it would write (the
 * string itself is not shown). Up to SAMPLING_LIMITS.stop.maxCount, as the runtime allows.
 */
export function StopList() {
  const sampling = useSlice('chat', (s) => s.settings.sampling);
  const setSampling = useSlice('chat', (s) => s.setSampling);
  const [typed, setTyped] = useState('');
  const stops = sampling.stop ?? [];
  const save = (next: string[]) => {
    const { stop: _, ...rest } = sampling;
    setSampling(next.length > 0 ? { ...rest, stop: next } : rest);
  };
  const candidate = readStopText(typed);
  const canAdd =
    candidate.length > 0 &&
    candidate.length <= maxLength &&
    stops.length < maxCount &&
    !stops.includes(candidate);
  const add = () => {
    if (!canAdd) return;
    save([...stops, candidate]);
    setTyped('');
  };
  return (
    <div className="stop-list" data-testid="stop-list" title="the answer ends before any of these strings">
      <span>stop strings</span>
      <ul>
        {stops.map((stop) => (
          <li key={stop}>
            <code>{showStopText(stop)}</code>
            <button
              type="button"
              className="icon"
              aria-label={`Remove stop string ${showStopText(stop)}`}
              onClick={() => save(stops.filter((s) => s !== stop))}
            >
              ×
            </button>
          </li>
        ))}
      </ul>
      <span className="stop-add">
        <input
          aria-label="New stop string"
          data-testid="stop-input"
          placeholder={stops.length < maxCount ? 'e.g. \\n\\n or ###' : `at most ${maxCount}`}
          disabled={stops.length >= maxCount}
          maxLength={maxLength * 2}
          value={typed}
          onChange={(event) => setTyped(event.target.value)}
          onKeyDown={(event) => {
            if (event.key === 'Enter') add();
          }}
        />
        <button type="button" className="small" disabled={!canAdd} onClick={add}>
          Add
        </button>
      </span>
      <p className="muted small-text">The answer ends before any of these; type \n for a line break.</p>
    </div>
  );
}
