import { Area, AreaChart, CartesianGrid, Legend, ResponsiveContainer, Tooltip, XAxis, YAxis } from 'recharts';
import type { RunComparison } from '../../../src-main/service/contract';
import { formatMs } from '../../components';

const SERIES = [
  { key: 'a', color: '#2e86de' },
  { key: 'b', color: '#e67e22' },
] as const;

/** The two runs' TTFT distributions on shared buckets, overlaid (shares of each run's requests). */
export function CompareChart(props: { comparison: RunComparison }) {
  const { edgesMs, countsA, countsB } = props.comparison.histogram;
  const totalA = countsA.reduce((s, c) => s + c, 0) || 1;
  const totalB = countsB.reduce((s, c) => s + c, 0) || 1;
  const rows = countsA.map((countA, i) => ({
    bucket: `≥ ${formatMs(edgesMs[i] ?? 0)}`,
    a: (countA / totalA) * 100,
    b: ((countsB[i] ?? 0) / totalB) * 100,
  }));
  return (
    <div className="chart" data-testid="compare-chart">
      <ResponsiveContainer width="100%" height={240}>
        <AreaChart data={rows} margin={{ top: 8, right: 8, bottom: 0, left: 8 }}>
          <CartesianGrid vertical={false} />
          <XAxis dataKey="bucket" interval="preserveStartEnd" />
          <YAxis unit="%" width={48} />
          <Tooltip isAnimationActive={false} formatter={(v) => `${Number(v).toFixed(1)}%`} />
          <Legend />
          {SERIES.map((series) => (
            <Area
              key={series.key}
              type="step"
              dataKey={series.key}
              name={`${series.key.toUpperCase()}: ${props.comparison[series.key].name}`}
              stroke={series.color}
              fill={series.color}
              fillOpacity={0.3}
              isAnimationActive={false}
            />
          ))}
        </AreaChart>
      </ResponsiveContainer>
    </div>
  );
}
