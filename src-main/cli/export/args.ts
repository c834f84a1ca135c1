import { parseArgs } from 'node:util';
import { UsageError } from '../usage-error';
import type { ExportFormat } from '../../telemetry/trace/export-formats';
import { EXPORT_FILE_TYPES, EXPORT_FORMATS, isExportFormat } from '../../telemetry/trace/export-formats';

/** What `npm run export -- …` was asked for: list the runs, or export one run or the live window. */
export type ExportArgs =
  | { kind: 'help' }
  | { kind: 'list'; dataDir: string | null; isJson: boolean }
  | {
      kind: 'export';
      /** A stored run's id (or an unambiguous prefix of it), or null for the live window. */
      runId: string | null;
      format: ExportFormat;
      /** The file to write, or null for stdout. */
      outPath: string | null;
      dataDir: string | null;
    };

/** Usage text printed by --help and after a bad command line. */
export const EXPORT_USAGE = `usage: npm run export -- (--run ID | --live) --format FORMAT [--out FILE] [--data-dir DIR]
       npm run export -- --list [--json] [--data-dir DIR]
  --run ID        a stored run (its full id from --list, or a prefix that names one run)
  --live          the newest stored requests, as many as the live window holds
  --format F      ${EXPORT_FORMATS.map((f) => `${f} (${EXPORT_FILE_TYPES[f].summary})`).join('\n                  ')}
  --out FILE      write FILE (complete or not at all) instead of stdout
  --data-dir DIR  the history's folder (default .first-frame in the repository, as npm run serve)
  --list          the stored runs: full id, start time, requests, source, name`;

/** Parses the export flags; throws UsageError with a message a user can act on. */
export function parseExportArgs(argv: readonly string[]): ExportArgs {
  let values;
  try {
    ({ values } = parseArgs({
      args: [...argv],
      options: {
        run: { type: 'string' },
        live: { type: 'boolean', default: false },
        format: { type: 'string' },
        out: { type: 'string' },
        'data-dir': { type: 'string' },
        list: { type: 'boolean', default: false },
        json: { type: 'boolean', default: false },
        help: { type: 'boolean', short: 'h', default: false },
      },
    }));
  } catch (error) {
    throw new UsageError((error as Error).message);
  }
  if (values.help) return { kind: 'help' };
  const dataDir = nonEmpty(values['data-dir'], '--data-dir');
  if (values.list) {
    const extra = ['run', 'live', 'format', 'out'].filter((k) => values[k as keyof typeof values]);
    if (extra.length > 0) throw new UsageError(`--list takes no --${extra.join(', --')}`);
    return { kind: 'list', dataDir, isJson: values.json };
  }
  if (values.json) throw new UsageError('--json goes with --list (exports name their format with --format)');
  const runId = nonEmpty(values.run, '--run');
  if ((runId === null) === !values.live)
    throw new UsageError('say which requests: --run ID or --live (one of them)');
  return {
    kind: 'export',
    runId,
    format: formatOf(values.format),
    outPath: nonEmpty(values.out, '--out'),
    dataDir,
  };
}

function formatOf(value: string | undefined): ExportFormat {
  if (value === undefined) throw new UsageError(`say which format: --format ${EXPORT_FORMATS.join('|')}`);
  if (!isExportFormat(value))
    throw new UsageError(`unknown format "${value}": use --format ${EXPORT_FORMATS.join(', ')}`);
  return value;
}

function nonEmpty(value: string | undefined, flag: string): string | null {
  if (value === undefined) return null;
  if (value.trim() === '') throw new UsageError(`${flag} needs a value`);
  return value;
}
