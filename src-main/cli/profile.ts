/**
 * `npm run profile -- FILE [--json] [--boundary client|server] [--skip-bad-lines]
 * [--slo-ttft-ms N] [--slo-itl-ms N]`: the latency report for a JSONL trace (seed 003 records
 * or our exported timelines; UTF-8 with or without a byte-order mark, LF or CRLF), at the
 * client boundary when the trace carries client stamps (seed 003's keys and meaning), with the
 * server's figures beside it. A sidecar `FILE.meta.json` (the load lab's `--trace-out`) adds
 * the engine, clock placement, collapsed phases and left-out requests, and the client TTFT
 * percentiles the lab printed beside the file's own. A rejected file exits 1 with `FILE:LINE: reason`; an empty or
 * blank file, or one with no acceptable line, exits 1 too. With no FILE it runs the built-in
 * positive and negative controls and exits 1 unless both behave.
 */
import { parseArgs } from 'node:util';
import type { ReportOptions } from '../telemetry/report/types';
import { buildReport } from '../telemetry/report/build-report';
import { formatReport } from '../telemetry/report/format-text';
import { toProfileJson } from '../telemetry/report/profile-json';
import { runControls } from '../telemetry/trace/controls';
import { importTraceFile, TraceFileTooLarge } from '../telemetry/trace/import-trace';
import { TraceImportError } from '../telemetry/trace/parse-line';
import { readTraceSidecar } from '../telemetry/trace/sidecar';
import { checkSidecar, sidecarLines } from './profile-sidecar';
import { print, printError } from '../printable';
import { reasonOf } from '../telemetry/log/log';

/** Defaults: seed 002's 1 s first-token target and seed 003's 80 ms inter-token objective. */
const DEFAULT_SLO = { ttftMs: 1_000, itlMs: 80 };

async function main(argv: string[]): Promise<number> {
  const { values, positionals } = parseArgs({
    args: argv,
    allowPositionals: true,
    options: {
      json: { type: 'boolean', default: false },
      'skip-bad-lines': { type: 'boolean', default: false },
      'slo-ttft-ms': { type: 'string' },
      'slo-itl-ms': { type: 'string' },
      boundary: { type: 'string', default: 'auto' },
    },
  });
  const boundary = values.boundary;
  if (boundary !== 'auto' && boundary !== 'client' && boundary !== 'server')
    throw new Error(`--boundary ${boundary}: client, server or auto`);
  const slo = {
    ttftMs: Number(values['slo-ttft-ms'] ?? DEFAULT_SLO.ttftMs),
    itlMs: Number(values['slo-itl-ms'] ?? DEFAULT_SLO.itlMs),
  };
  if (!(slo.ttftMs > 0) || !(slo.itlMs > 0))
    throw new Error('--slo-ttft-ms and --slo-itl-ms must be positive numbers');
  const path = positionals[0];
  if (!path) return controls({ slo }, values.json);
  return profileFile(path, { slo, boundary }, values.json, values['skip-bad-lines']);
}

async function profileFile(
  path: string,
  options: ReportOptions,
  isJson: boolean,
  skipBadLines: boolean,
): Promise<number> {
  let imported;
  try {
    imported = await importTraceFile(path, { skipBadLines });
  } catch (error) {
    if (error instanceof TraceFileTooLarge) {
      printError(`${path}: ${error.message}`);
      return 1;
    }
    if (!(error instanceof TraceImportError)) throw error;
    printError(`${path}:${error.line}: ${error.reason}`);
    printError('rejected: fix the line, or pass --skip-bad-lines to skip and count bad lines');
    return 1;
  }
  for (const { line, reason } of imported.rejected) printError(`${path}:${line}: skipped: ${reason}`);
  const numUnlisted = imported.numRejected - imported.rejected.length;
  if (numUnlisted > 0) printError(`${path}: skipped ${numUnlisted} more bad line(s)`);
  if (imported.numLines === 0) {
    printError(`${path}: no records: the file is empty or holds only blank lines`);
    return 1;
  }
  if (imported.numImported === 0) {
    printError(`${path}: every line was rejected; there is nothing to report`);
    return 1;
  }
  const side = readTraceSidecar(path);
  if (side && 'problem' in side)
    printError(`sidecar not read (the trace is profiled without it): ${side.problem}`);
  const sidecar = side && 'sidecar' in side ? side.sidecar : null;
  // Seed 003 records name no model; the sidecar does (the by-class cells then say which).
  if (sidecar) for (const t of imported.timelines) t.modelId ||= sidecar.model;
  const report = buildReport(imported.timelines, options);
  const workload = `trace replay of ${imported.numLines} line(s), ${imported.numRejected} skipped`;
  const check = sidecar ? checkSidecar(sidecar, report) : null;
  if (isJson) {
    const extra = {
      num_lines: imported.numLines,
      skipped_lines: imported.rejected,
      ...(sidecar ? { sidecar, sidecar_client_ttft_check: check } : {}),
    };
    print(JSON.stringify(toProfileJson(report, path, workload, extra), null, 2));
  } else {
    const lines = formatReport(report, path, workload);
    print([...lines, ...(sidecar && check ? sidecarLines(sidecar, check) : [])].join('\n'));
  }
  return 0;
}

async function controls(options: ReportOptions, isJson: boolean): Promise<number> {
  const result = await runControls(options);
  if (isJson) {
    const positive = toProfileJson(result.positive.report, 'bursty positive control', 'replayed burst', {
      passed: result.positive.isPassed,
      problem: result.positive.problem,
    });
    print(JSON.stringify({ passed: result.isPassed, positive, negative: result.negative }, null, 2));
  } else {
    print(formatReport(result.positive.report, 'bursty positive control', 'replayed burst').join('\n'));
    print(
      result.positive.isPassed
        ? 'Positive control: passed'
        : `Positive control: FAILED (${result.positive.problem})`,
    );
    print(
      result.negative.isPassed
        ? `Negative control: rejected as expected: ${result.negative.reason}`
        : 'Negative control: FAILED (a record with prefill ending before it starts was accepted)',
    );
  }
  return result.isPassed ? 0 : 1;
}

main(process.argv.slice(2)).then(
  (code) => process.exit(code),
  (error: unknown) => {
    printError(reasonOf(error));
    process.exit(2);
  },
);
