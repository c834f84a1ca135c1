import { CartesianGrid, Legend, Line, LineChart, ResponsiveContainer, Tooltip, XAxis, YAxis } from 'recharts';
import type { EngineStats } from '../../../src-main/service/contract/schemas';
import { formatClock } from '../../components/format';

/**
 * Running seats and queue depth over time, as step lines (the engine's own samples); Simple
 * names them as answers being written and answers waiting.
 */
export function LoadChart(props: { load: readonly EngineStats[]; isSimple?: boolean }) {
  if (props.load.length === 0) return <p className="empty-chart">No engine samples yet.</p>;
  return (
    <div className="chart" data-testid="load-chart">
      <ResponsiveContainer width="100%" height={200}>
        <LineChart data={props.load as EngineStats[]} margin={{ top: 8, right: 8, bottom: 0, left: 8 }}>
          <CartesianGrid vertical={false} />
          <XAxis
            dataKey="atWallMs"
            type="number"
            domain={['dataMin', 'dataMax']}
            tickFormatter={formatClock}
          />
          <YAxis allowDecimals={false} width={40} />
          <Tooltip isAnimationActive={false} labelFormatter={(v) => formatClock(Number(v))} />
          <Legend />
          <Line
            type="stepAfter"
            dataKey="numRunning"
            name={props.isSimple ? 'answers being written' : 'running seats'}
            stroke="#2e86de"
            dot={false}
            isAnimationActive={false}
          />
          <Line
            type="stepAfter"
            dataKey="numWaiting"
            name={props.isSimple ? 'answers waiting' : 'queue depth'}
            stroke="#e67e22"
            dot={false}
            isAnimationActive={false}
          />
        </LineChart>
      </ResponsiveContainer>
    </div>
  );
}
