import { Bar, BarChart, CartesianGrid, Legend, ResponsiveContainer, Tooltip, XAxis, YAxis } from 'recharts';
import type { RunComparison } from '../../../src-main/service/contract';
import { bucketLabel } from './buckets';

const SERIES = [
  { key: 'a', color: '#2e86de' },
  { key: 'b', color: '#e67e22' },
] as const;

/**
 * The two runs' TTFT distributions on shared buckets: one pair of bars per bucket (share of each
 * run's requests), so every bar sits on the bucket it counts; hover a bucket for counts and shares.
 */
export function CompareChart(props: { comparison: RunComparison }) {
  const { edgesMs, countsA, countsB } = props.comparison.histogram;
  const totalA = countsA.reduce((s, c) => s + c, 0) || 1;
  const totalB = countsB.reduce((s, c) => s + c, 0) || 1;
  const rows = countsA.map((countA, i) => ({
    bucket: bucketLabel(edgesMs, i),
    a: (countA / totalA) * 100,
    b: ((countsB[i] ?? 0) / totalB) * 100,
    countA,
    countB: countsB[i] ?? 0,
  }));
  const nameOf = (key: 'a' | 'b') => `${key.toUpperCase()}: ${props.comparison[key].name}`;
  return (
    <div className="chart" data-testid="compare-chart">
      <ResponsiveContainer width="100%" height={280}>
        <BarChart data={rows} margin={{ top: 8, right: 12, bottom: 8, left: 8 }} barCategoryGap="18%">
          <CartesianGrid vertical={false} />
          <XAxis
            dataKey="bucket"
            interval={0}
            height={48}
            label={{ value: 'TTFT bucket', position: 'insideBottom', className: 'axis-title' }}
          />
          <YAxis
            unit="%"
            width={56}
            allowDecimals={false}
            label={{
              value: 'share of the run’s requests',
              angle: -90,
              position: 'insideLeft',
              dy: 70,
              className: 'axis-title',
            }}
          />
          <Tooltip
            isAnimationActive={false}
            formatter={(value, name, item) => {
              const payload = (item as { payload?: { countA: number; countB: number } }).payload;
              const count = String(name).startsWith('A') ? payload?.countA : payload?.countB;
              return [`${Number(value).toFixed(1)}% (${count ?? 0} requests)`, name];
            }}
            labelFormatter={(label) => `TTFT ${String(label)}`}
          />
          <Legend verticalAlign="top" height={28} />
          {SERIES.map((series) => (
            <Bar
              key={series.key}
              dataKey={series.key}
              name={nameOf(series.key)}
              fill={series.color}
              isAnimationActive={false}
            />
          ))}
        </BarChart>
      </ResponsiveContainer>
    </div>
  );
}
