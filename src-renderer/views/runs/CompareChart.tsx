import { Bar, BarChart, CartesianGrid, Legend, ResponsiveContainer, Tooltip, XAxis, YAxis } from 'recharts';
import type { RunComparison } from '../../../src-main/service/contract/report-schemas';
import { useSlice } from '../../store/react';
import { bucketLabel } from './buckets';

const COLORS = ['#2e86de', '#e67e22', '#27ae60', '#8e44ad', '#c0392b', '#16a085', '#d35400', '#7f8c8d'];

/**
 * Every compared run's TTFT distribution (at its boundary) on shared buckets: one bar per run
 * per bucket (share of that run's requests), so every bar sits on the bucket it counts; hover a
 * bucket for counts and shares.
 */
export function CompareChart(props: { comparison: RunComparison }) {
  const { edgesMs, series } = props.comparison.histogram;
  const isExpert = useSlice('ui', (s) => s.preferences.viewMode === 'expert');
  const nameOf = (s: (typeof series)[number]) => (isExpert ? `${s.label} (${s.boundary} TTFT)` : s.label);
  const totals = series.map((s) => s.counts.reduce((sum, c) => sum + c, 0) || 1);
  const rows = edgesMs.map((_, i) => ({
    bucket: bucketLabel(edgesMs, i),
    ...Object.fromEntries(series.map((s, k) => [s.runId, ((s.counts[i] ?? 0) / totals[k]!) * 100])),
    counts: series.map((s) => s.counts[i] ?? 0),
  }));
  return (
    <div className="chart" data-testid="compare-chart">
      <ResponsiveContainer width="100%" height={280}>
        <BarChart data={rows} margin={{ top: 8, right: 12, bottom: 8, left: 8 }} barCategoryGap="18%">
          <CartesianGrid vertical={false} />
          <XAxis
            dataKey="bucket"
            interval={0}
            height={48}
            label={{
              value: isExpert ? 'wait for the first word (TTFT)' : 'wait for the first word',
              position: 'insideBottom',
              className: 'axis-title',
            }}
          />
          <YAxis
            unit="%"
            width={56}
            allowDecimals={false}
            label={{
              value: 'share of its requests',
              angle: -90,
              position: 'insideLeft',
              dy: 70,
              className: 'axis-title',
            }}
          />
          <Tooltip
            isAnimationActive={false}
            formatter={(value, name, item) => {
              const payload = (item as { payload?: { counts: number[] } }).payload;
              const k = series.findIndex((s) => nameOf(s) === name);
              return [`${Number(value).toFixed(1)}% (${payload?.counts[k] ?? 0} requests)`, name];
            }}
            labelFormatter={(label) =>
              `${isExpert ? 'first word after (TTFT)' : 'first word after'} ${String(label)}`
            }
          />
          {/* In the table's order (A, B, …): Recharts sorts legend items by name unless told not to. */}
          <Legend verticalAlign="top" height={28} itemSorter={null} />
          {series.map((s, k) => (
            <Bar
              key={s.runId}
              dataKey={s.runId}
              name={nameOf(s)}
              fill={COLORS[k % COLORS.length]}
              isAnimationActive={false}
            />
          ))}
        </BarChart>
      </ResponsiveContainer>
    </div>
  );
}
