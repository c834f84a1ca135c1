/**
 * `npm run export -- (--run ID | --live) --format csv|jsonl|chrome-trace [--out FILE] [--data-dir DIR]`
 * and `npm run export -- --list`: stored runs out of the history database, in the same formats
 * the app's Runs view and Dashboard offer, streamed with flat memory. Stdout unless --out;
 * progress and the summary go to stderr. Exit 0 done, 1 failed (unknown run, no history,
 * cannot write), 2 bad command line.
 */
import { existsSync } from 'node:fs';
import path from 'node:path';
import type { Writable } from 'node:stream';
import { prepareExport } from '../service/run-export';
import type { PreparedExport } from '../service/run-export';
import { openSqliteHistory } from '../history/history';
import type { History } from '../history/history';
import { DEFAULT_WINDOW_CAPACITY } from '../telemetry/report/window';
import { saveFileAtomically } from '../telemetry/trace/save-file';
import { writeExport } from '../telemetry/trace/write-export';
import type { ExportArgs } from './export/args';
import { EXPORT_USAGE, parseExportArgs } from './export/args';
import { UsageError } from './usage-error';
import { formatRunList, listRuns, resolveRunId } from './export/list';
import { withProgress } from './export/progress';
import { DEFAULT_DATA_DIR } from './paths';
import { print, printableTo, printError } from '../printable';
import { reasonOf } from '../telemetry/log/log';

async function main(argv: string[]): Promise<number> {
  let args: ExportArgs;
  try {
    args = parseExportArgs(argv);
  } catch (error) {
    if (!(error instanceof UsageError)) throw error;
    printError(`${error.message}\n${EXPORT_USAGE}`);
    return 2;
  }
  if (args.kind === 'help') {
    print(EXPORT_USAGE);
    return 0;
  }
  const history = openHistory(args.dataDir ?? DEFAULT_DATA_DIR);
  try {
    if (args.kind === 'list') {
      const runs = listRuns(history);
      print(args.isJson ? JSON.stringify(runs, null, 2) : formatRunList(runs).join('\n'));
      return 0;
    }
    const runId = args.runId === null ? null : resolveRunId(history, args.runId);
    const prepared = prepareExport(
      {
        history,
        liveTimelines: () => history.timelines.recent(DEFAULT_WINDOW_CAPACITY),
        wallNow: () => Date.now(),
      },
      { format: args.format, runId },
    );
    const numRows = await writeTo(args.outPath, prepared);
    const what = runId === null ? 'the live window' : `run ${runId}`;
    printError(
      `exported ${numRows} request(s) from ${what} as ${args.format} to ${args.outPath ?? 'stdout'}`,
    );
    return 0;
  } finally {
    history.close();
  }
}

/** The history database in `dataDir`, or an error that says where it looked and what to do. */
function openHistory(dataDir: string): History {
  const file = path.join(dataDir, 'history.sqlite');
  if (!existsSync(file))
    throw new Error(
      `no history at ${file}: pass --data-dir DIR (the desktop app's is under File → Open Data Folder), or serve some requests first`,
    );
  return openSqliteHistory(file);
}

/** Streams the export to the file (complete or not at all) or to stdout; resolves to the row count. */
function writeTo(outPath: string | null, prepared: PreparedExport): Promise<number> {
  const source = withProgress(prepared.timelines(), prepared.numRows, (numDone, numTotal) =>
    printError(`exported ${numDone} of ${numTotal} requests (${Math.round((100 * numDone) / numTotal)}%)`),
  );
  const write = (out: Writable, isEndingOutput: boolean) =>
    writeExport(prepared.format, source, out, { isEndingOutput });
  if (outPath !== null) return saveFileAtomically(outPath, (out) => write(out, true));
  // A terminal gets the export with control characters escaped; a pipe gets it byte for byte.
  return write(process.stdout.isTTY ? printableTo(process.stdout) : process.stdout, false);
}

main(process.argv.slice(2)).then(
  (code) => process.exit(code),
  (error: unknown) => {
    if ((error as NodeJS.ErrnoException).code === 'EPIPE') process.exit(0);
    printError(reasonOf(error));
    process.exit(1);
  },
);
