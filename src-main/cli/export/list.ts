import { printable } from '../../printable';
import type { History } from '../../history/history';

/** Where a run's requests came from: served here, imported from a trace, both, or none yet. */
export type RunSource = 'runtime' | 'import' | 'mixed' | 'empty';

/** One stored run as `--list` shows it; `startedWallMs` is epoch ms. */
export interface RunListing {
  runId: string;
  name: string;
  startedWallMs: number;
  numRequests: number;
  source: RunSource;
}

/** Every stored run, newest first, with where its requests came from. */
export function listRuns(history: History): RunListing[] {
  return history.runs.list().map((run) => {
    const numImported =
      run.numRequests === 0 ? 0 : history.timelines.count({ runId: run.runId, source: 'import' });
    return {
      runId: run.runId,
      name: run.name,
      startedWallMs: run.startedWallMs,
      numRequests: run.numRequests,
      source: sourceOf(run.numRequests, numImported),
    };
  });
}

function sourceOf(numRequests: number, numImported: number): RunSource {
  if (numRequests === 0) return 'empty';
  if (numImported === 0) return 'runtime';
  return numImported === numRequests ? 'import' : 'mixed';
}

/** The runs as an aligned table (local time), one header line first; a sentence when there are none. */
export function formatRunList(runs: readonly RunListing[]): string[] {
  if (runs.length === 0) return ['no stored runs (run a benchmark or import a trace in the app first)'];
  // Names (and ids) may come from an imported trace: one line each, control characters escaped.
  const rows = runs.map((r) => [
    printable(r.runId, 'none'),
    localTime(r.startedWallMs),
    String(r.numRequests),
    r.source,
    printable(r.name, 'none'),
  ]);
  const header = ['run id', 'started', 'requests', 'source', 'name'];
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((row) => row[i]!.length)));
  const line = (cells: string[]) =>
    cells
      .map((cell, i) => (i === 2 ? cell.padStart(widths[i]!) : cell.padEnd(widths[i]!)))
      .join('  ')
      .trimEnd();
  return [line(header), ...rows.map(line)];
}

/** `YYYY-MM-DD HH:MM:SS` in the machine's time zone. */
function localTime(wallMs: number): string {
  const d = new Date(wallMs);
  const pad = (n: number) => String(n).padStart(2, '0');
  return `${d.getFullYear()}-${pad(d.getMonth() + 1)}-${pad(d.getDate())} ${pad(d.getHours())}:${pad(d.getMinutes())}:${pad(d.getSeconds())}`;
}

/**
 * The run a `--run` value names: the run with that exact id, else the one run whose id starts
 * with it (like a short git hash). Throws with the reason when none or several match.
 */
export function resolveRunId(history: History, given: string): string {
  if (history.runs.get(given)) return given;
  const matches = history.runs.list().filter((run) => run.runId.startsWith(given));
  if (matches.length === 1) return matches[0]!.runId;
  if (matches.length === 0)
    throw new Error(`no stored run "${given}": npm run export -- --list shows the stored runs`);
  const shown = matches.slice(0, 5).map((run) => run.runId);
  throw new Error(`"${given}" starts ${matches.length} run ids (${shown.join(', ')}…): give more of the id`);
}
