import type { caseJson, TargetCheck } from './summary';
import { print } from '../../src-main/printable';

interface PrintableReport {
  model: { id: string };
  workload: Record<string, unknown>;
  boundary: string;
  statistic: string;
  slot: Record<string, unknown>;
  runs: Array<ReturnType<typeof caseJson>>;
  decode: Record<string, number>;
  prefetch: { ratios: Record<string, unknown> };
  targets: TargetCheck[];
}

const ms = (value: number): string => (Number.isFinite(value) ? value.toFixed(2) : 'n/a').padStart(9);

/** The human-readable form of the first-frame report. */
export function printTable(report: PrintableReport): void {
  const out = (line = '') => print(line);
  out(`\nfirst-frame benchmark — model ${report.model.id}`);
  out(`workload: ${JSON.stringify(report.workload)}`);
  out(`boundary: ${report.boundary}`);
  out(`statistic: ${report.statistic}\n`);
  const phases = Object.keys(report.runs[0]?.phase_ms ?? {});
  out(
    [
      'case'.padEnd(32),
      'prompt',
      'cached',
      ...phases.map((p) => p.padStart(9)),
      'ttft'.padStart(9),
      'floor'.padStart(9),
      'e2e'.padStart(9),
    ].join(' '),
  );
  for (const row of report.runs) {
    const cells = phases.map((p) => ms(row.phase_ms[p] ?? Number.NaN));
    out(
      [
        row.case.padEnd(32),
        String(Math.round(row.prompt_tokens)).padStart(6),
        String(Math.round(row.cached_tokens)).padStart(6),
        ...cells,
        ms(row.first_chunk_ms),
        ms(row.floor_prefill_ms),
        ms(row.full_response_ms),
      ].join(' '),
    );
  }
  out(`\ndecode: ${JSON.stringify(report.decode)}`);
  out(`slot: ${JSON.stringify(report.slot)}`);
  out(`prefetch (cold reads of the model file): ${JSON.stringify(report.prefetch.ratios)}\n`);
  for (const t of report.targets)
    out(
      `${t.isMet ? 'MET ' : 'MISS'} ${t.name.padEnd(36)} ${t.measured.toFixed(3).padStart(9)} (target ${t.target}) — ${t.how}`,
    );
}
