import { SLOT_STATUSES } from '../../../src-main/telemetry/residency/schema';
import { useSlice } from '../../store/react';
import type { ResidencyBand } from './residency-bands';
import { residencyRows, spanOf } from './residency-bands';
import { statusWords } from './slot-words';
import { formatClock, formatMs } from '../../components/format';
import { useNow } from '../../components/use-ticker';

const describe = (b: ResidencyBand) =>
  `${statusWords(b.status)} ${formatClock(b.fromWallMs)}–${formatClock(b.toWallMs)} (${formatMs(b.toWallMs - b.fromWallMs)}), cause: ${b.cause}${b.reason ? ` — ${b.reason}` : ''}`;

/** State bands per slot over time; hovering a band names its status, span and cause. */
export function ResidencyTimeline() {
  const events = useSlice('slots', (s) => s.events);
  const now = useNow();
  const rows = residencyRows(events, now);
  if (rows.length === 0) return <p className="empty-chart">No slot transitions yet.</p>;
  const span = spanOf(rows, now);
  const widthMs = span.toWallMs - span.fromWallMs;
  const pct = (ms: number) => `${((ms / widthMs) * 100).toFixed(3)}%`;
  return (
    <div className="residency" data-testid="residency-timeline">
      {rows.map((row) => (
        <div key={row.slotId} className="residency-row">
          <span className="residency-label">{row.modelId}</span>
          <div className="residency-track">
            {row.bands.map((b) => (
              <div
                key={b.fromWallMs}
                className={`band status-${b.status}`}
                data-testid="residency-band"
                data-status={b.status}
                data-cause={b.cause}
                title={describe(b)}
                style={{ left: pct(b.fromWallMs - span.fromWallMs), width: pct(b.toWallMs - b.fromWallMs) }}
              />
            ))}
          </div>
        </div>
      ))}
      <div className="residency-axis muted">
        <span>{formatClock(span.fromWallMs)}</span>
        <ul className="status-legend">
          {SLOT_STATUSES.map((s) => (
            <li key={s}>
              <span className={`swatch status-${s}`} />
              {statusWords(s)}
            </li>
          ))}
        </ul>
        <span>now</span>
      </div>
    </div>
  );
}
