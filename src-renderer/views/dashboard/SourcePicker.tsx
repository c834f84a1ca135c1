import { useSlice } from '../../store/react';
import { DASHBOARD_SOURCE_LABELS, DASHBOARD_SOURCES } from '../../store/timeline-source';
import type { DashboardSource } from '../../store/timeline-source';

/** Whose requests the Dashboard covers: chats by default; benchmarks and runs, the API, or all on request. */
export function SourcePicker() {
  const source = useSlice('live', (s) => s.source);
  const setSource = useSlice('live', (s) => s.setSource);
  return (
    <label className="dashboard-source">
      Show{' '}
      <select
        data-testid="dashboard-source"
        value={source}
        onChange={(event) => setSource(event.target.value as DashboardSource)}
      >
        {DASHBOARD_SOURCES.map((s) => (
          <option key={s} value={s}>
            {DASHBOARD_SOURCE_LABELS[s]}
          </option>
        ))}
      </select>
    </label>
  );
}
