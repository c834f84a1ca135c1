import { useState } from 'react';
import type { Slo } from '../../../src-main/service/contract/report-schemas';
import type { Boundary } from '../../../src-main/telemetry/report/seed-phases';
import type { LatencyReport } from '../../../src-main/telemetry/report/types';
import { Figures } from '../../components/Figures';
import { formatShare } from '../../components/format';
import { NumberField } from '../../components/NumberField';
import { TERMS } from '../../components/Term';
import type { Figure } from '../../components/Figures';

/**
 * Goodput against the SLOs the user types (TTFT and per-request ITL) at the boundary the user
 * names, throughput, and the share of rejected, errored and cancelled requests.
 */
export function GoodputPanel(props: {
  report: LatencyReport;
  slo: Slo | null;
  onSlo(slo: Slo | null): void;
  boundary: Boundary | 'auto';
  onBoundary(boundary: Boundary | 'auto'): void;
}) {
  const [ttft, setTtft] = useState<number | null>(props.slo?.ttftMs ?? 500);
  const [itl, setItl] = useState<number | null>(props.slo?.itlMs ?? 100);
  const apply = (ttftMs: number | null, itlMs: number | null) => {
    setTtft(ttftMs);
    setItl(itlMs);
    props.onSlo(ttftMs !== null && itlMs !== null && ttftMs > 0 && itlMs > 0 ? { ttftMs, itlMs } : null);
  };
  return (
    <div className="goodput">
      <div className="slo-inputs" title={TERMS.SLO}>
        <NumberField
          label="TTFT SLO (ms)"
          testId="slo-ttft"
          min={1}
          value={ttft}
          onChange={(v) => apply(v, itl)}
        />
        <NumberField
          label="ITL SLO (ms)"
          testId="slo-itl"
          min={1}
          value={itl}
          onChange={(v) => apply(ttft, v)}
        />
        <label>
          boundary
          <select
            data-testid="goodput-boundary"
            value={props.boundary}
            onChange={(e) => props.onBoundary(e.target.value as Boundary | 'auto')}
          >
            <option value="auto">auto (client when reported)</option>
            <option value="client">client</option>
            <option value="server">server</option>
          </select>
        </label>
      </div>
      <Figures figures={goodputFigures(props.report)} />
    </div>
  );
}

function goodputFigures(report: LatencyReport): Figure[] {
  const { goodput, throughput } = report;
  const shares = throughput?.finishShares;
  return [
    {
      label: goodput ? `goodput (${goodput.boundary})` : 'goodput',
      labelTitle: TERMS.goodput,
      value: goodput
        ? `${formatShare(goodput.goodShare)} · ${goodput.goodPerS.toFixed(2)} req/s${goodput.numUnmeasured > 0 ? ` · ${goodput.numUnmeasured} without ${goodput.boundary} figures` : ''}`
        : '–',
      testId: 'goodput-share',
    },
    { label: 'missed TTFT SLO', labelTitle: TERMS.SLO, value: formatShare(goodput?.missedTtftShare) },
    {
      label: 'throughput',
      value: throughput
        ? `${throughput.requestsPerS.toFixed(2)} req/s · ${throughput.outputTokensPerS.toFixed(1)} tok/s`
        : '–',
    },
    {
      label: 'rejected / errored',
      value: shares ? `${formatShare(shares.rejected)} / ${formatShare(shares.error)}` : '–',
      testId: 'failed-share',
    },
    { label: 'cancelled', value: formatShare(shares?.cancelled) },
  ];
}
