import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';

/** One event of an ONNX Runtime profile (Chrome trace format). */
export interface ProfileEvent {
  cat: string;
  name: string;
  ts: number;
  dur: number;
}

/**
 * Nodes ONNX Runtime ran in the last run of a profile: the `Node` kernel events inside the last
 * `model_run` span. Counted from what ran, independently of any graph file.
 */
export function nodesInLastRun(events: readonly ProfileEvent[]): number {
  const runs = events.filter((e) => e.cat === 'Session' && e.name === 'model_run');
  const last = runs.at(-1);
  if (!last) throw new Error('the profile holds no model_run');
  return events.filter(
    (e) =>
      e.cat === 'Node' && e.name.endsWith('_kernel_time') && e.ts >= last.ts && e.ts <= last.ts + last.dur,
  ).length;
}

/** Nodes in the last run of the one profile in `dir` whose file name starts with `prefix`. */
export function nodesInLastProfiledRun(dir: string, prefix: string): number {
  const [file] = readdirSync(dir).filter((name) => name.startsWith(prefix) && name.endsWith('.json'));
  if (!file) throw new Error(`ONNX Runtime wrote no profile for ${prefix}`);
  return nodesInLastRun(JSON.parse(readFileSync(path.join(dir, file), 'utf8')) as ProfileEvent[]);
}
