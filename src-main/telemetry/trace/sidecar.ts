import { readFileSync, statSync } from 'node:fs';
import { z } from 'zod';
import { TRACE_LIMITS } from '../../limits';

/** The sidecar's format tag: a `.meta.json` beside a seed 003 trace, written by the load lab. */
export const TRACE_SIDECAR_FORMAT = 'first-frame.seed-003-sidecar';

/** Largest sidecar read back (bytes): its left-out list is capped, so a real one is far smaller. */
const MAX_SIDECAR_BYTES = 4 * 1024 * 1024;

/** Nearest-rank percentiles of client TTFT (ms) as the lab printed them, and how many it ranked. */
const LabPercentilesSchema = z.object({
  n: z.number().int().min(0),
  p50: z.number().nullable(),
  p90: z.number().nullable(),
  p95: z.number().nullable(),
  p99: z.number().nullable(),
  mean: z.number().nullable(),
  statistic: z.string(),
});

/**
 * What a seed 003 trace of a remote engine cannot say in its records: which engine and
 * endpoint, how the server's stamps were put on the client's clock and how uncertain that is,
 * which server phases were collapsed to zero width because the engine reports no stamps for
 * them (and in how many records), which requests were left out and why, and the client TTFT
 * percentiles the lab printed (so a reader can check the file reproduces them).
 */
export const TraceSidecarSchema = z.object({
  format: z.literal(TRACE_SIDECAR_FORMAT),
  version: z.literal(1),
  trace_file: z.string(),
  engine: z.string(),
  endpoint: z.string(),
  model: z.string(),
  /** Whose timing fields each record's server stamps came from → number of records. */
  report_sources: z.record(z.string(), z.number().int().min(0)),
  clock: z.object({
    client: z.string(),
    placement: z.string(),
    /** ± ms over the written records (each record's own is half its placement window). */
    uncertainty_ms: z.object({ max: z.number().nullable(), mean: z.number().nullable() }),
  }),
  /** Seed 003 server phase → number of records where it is collapsed to zero width. */
  collapsed_phases: z.record(z.string(), z.number().int().min(0)),
  collapse_note: z.string(),
  num_records: z.number().int().min(0),
  num_left_out: z.number().int().min(0),
  /** The first left-out requests with their reasons (all are counted in num_left_out). */
  left_out: z
    .array(z.object({ request_id: z.string(), reason: z.string() }))
    .max(TRACE_LIMITS.maxListedRejections),
  lab_client_ttft_ms: LabPercentilesSchema,
  /** Run-level server phases per lab phase (vLLM's /metrics), as the lab reported them. */
  server_phases: z.array(z.unknown()),
});
/** See TraceSidecarSchema. */
export type TraceSidecar = z.infer<typeof TraceSidecarSchema>;

/** `FILE.jsonl` → `FILE.meta.json` (any other name gets `.meta.json` appended). */
export function sidecarPathOf(tracePath: string): string {
  return `${tracePath.replace(/\.jsonl$/i, '')}.meta.json`;
}

/**
 * The sidecar beside `tracePath`: null when there is none, or the reason it cannot be read
 * (unreadable, too large, not JSON, not this format) — the trace itself is still profiled.
 */
export function readTraceSidecar(tracePath: string): { sidecar: TraceSidecar } | { problem: string } | null {
  const file = sidecarPathOf(tracePath);
  let size: number;
  try {
    size = statSync(file).size;
  } catch (error) {
    // Only a missing file means "no sidecar"; one that cannot be read (permissions, …) says so.
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return null;
    return { problem: `${file}: cannot be read (${(error as Error).message})` };
  }
  if (size > MAX_SIDECAR_BYTES)
    return { problem: `${file}: ${size} bytes, at most ${MAX_SIDECAR_BYTES} are read` };
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (error) {
    return { problem: `${file}: cannot be read (${(error as Error).message})` };
  }
  let json: unknown;
  try {
    json = JSON.parse(text.replace(/^\uFEFF/, ''));
  } catch (error) {
    return { problem: `${file}: not JSON (${(error as Error).message})` };
  }
  const parsed = TraceSidecarSchema.safeParse(json);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    return { problem: `${file}: ${issue.path.join('.') || '(top)'}: ${issue.message}` };
  }
  return { sidecar: parsed.data };
}
