import { GroupShares } from './GroupShares';
import { LoadChart } from './LoadChart';
import { PercentileTable } from './PercentileTable';
import { RecentAnswersPanel } from './RecentAnswersPanel';
import { SourcePicker } from './SourcePicker';
import { Panel } from '../../components/Panel';
import { SIMPLE_GROUPS } from '../../parts/simple-groups';
import { changePreferences } from '../../store/preferences';
import { useSlice, useStores } from '../../store/react';

/**
 * The Dashboard in Simple: the recent answers in the four plain groups, how long answers took
 * in words, where the wait went on average and what is running. The same window and numbers as
 * Expert (every group is a sum of parts, so bars and means keep their totals); what Simple
 * leaves out is named at the end, one click from Expert.
 */
export function SimpleDashboard() {
  const view = useSlice('live', (s) => s.view);
  const stores = useStores();
  const r = view.report;
  return (
    <div className="dashboard" data-testid="dashboard" data-mode="simple">
      <SourcePicker />
      <RecentAnswersPanel
        layers={SIMPLE_GROUPS}
        hint="the newest answers this app wrote, each bar the time to its first word, in four groups"
      />
      <Panel
        title="How long answers took"
        hint="percentiles by nearest rank over the recent answers"
        className="wide"
      >
        {r.note && <p className="muted">{r.note}</p>}
        <PercentileTable report={r} isSimple />
      </Panel>
      <Panel title="Where the wait went" hint="the mean of each group of timeline parts">
        <GroupShares report={r} />
      </Panel>
      <Panel title="Answers running and waiting" hint="answers being written and answers queued, over time">
        <LoadChart load={view.load} isSimple />
      </Panel>
      <section className="panel wide" data-testid="dashboard-more">
        <p className="muted">
          Expert adds every timeline part with the next test to run, the slowest answers against the rest,
          your targets (goodput), the seven phases end to end and the load check (Little&apos;s law).{' '}
          <button type="button" onClick={() => void changePreferences(stores, { viewMode: 'expert' })}>
            Show Expert
          </button>
        </p>
      </section>
    </div>
  );
}
