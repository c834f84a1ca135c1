/**
 * A checker of the Trace Event Format subset Perfetto's JSON importer reads (test helper): a
 * `traceEvents` array of complete (`X`) spans with integer-µs-compatible `ts`/`dur` and metadata
 * (`M`) naming processes and threads; spans on one track must nest, or the viewer drops them.
 * Returns every problem found (empty: valid).
 */
export function traceProblems(parsed: unknown): string[] {
  if (typeof parsed !== 'object' || parsed === null || !Array.isArray((parsed as Rec).traceEvents))
    return ['no traceEvents array at the top level'];
  const problems: string[] = [];
  const events = (parsed as { traceEvents: Rec[] }).traceEvents;
  const namedProcesses = new Set<number>();
  const namedThreads = new Set<string>();
  const spans = new Map<string, { name: string; start: number; end: number }[]>();
  events.forEach((e, i) => {
    const where = `event ${i} (${String(e.name)})`;
    if (typeof e.name !== 'string' || e.name === '') problems.push(`${where}: no name`);
    if (!isId(e.pid) || !isId(e.tid)) problems.push(`${where}: pid and tid must be non-negative integers`);
    if (e.ph === 'M') checkMetadata(e, where, problems, namedProcesses, namedThreads);
    else if (e.ph === 'X') {
      if (!isFiniteNumber(e.ts) || !isFiniteNumber(e.dur) || (e.dur as number) < 0)
        return problems.push(`${where}: X needs finite ts and dur ≥ 0 (µs)`);
      const track = `${String(e.pid)}/${String(e.tid)}`;
      const list = spans.get(track) ?? [];
      list.push({ name: e.name as string, start: e.ts as number, end: (e.ts as number) + (e.dur as number) });
      spans.set(track, list);
    } else problems.push(`${where}: ph must be X or M, got ${String(e.ph)}`);
  });
  for (const [track, list] of spans) {
    if (!namedProcesses.has(Number(track.split('/')[0])))
      problems.push(`process of track ${track} has no name`);
    if (!namedThreads.has(track)) problems.push(`track ${track} has no thread_name`);
    problems.push(...nestingProblems(track, list));
  }
  return problems;
}

type Rec = Record<string, unknown>;

function checkMetadata(
  e: Rec,
  where: string,
  problems: string[],
  processes: Set<number>,
  threads: Set<string>,
) {
  const args = (e.args ?? {}) as Rec;
  if (e.name === 'process_name' || e.name === 'thread_name') {
    if (typeof args.name !== 'string' || args.name === '')
      problems.push(`${where}: args.name must be a string`);
    if (e.name === 'process_name') processes.add(e.pid as number);
    else {
      const track = `${String(e.pid)}/${String(e.tid)}`;
      if (threads.has(track)) problems.push(`${where}: track ${track} named twice`);
      threads.add(track);
    }
  } else if (e.name === 'process_sort_index' || e.name === 'thread_sort_index') {
    if (!Number.isInteger(args.sort_index)) problems.push(`${where}: args.sort_index must be an integer`);
  } else problems.push(`${where}: unknown metadata event`);
}

/** Spans of one track must nest: each starts after its parent's end or ends within it. */
function nestingProblems(track: string, list: { name: string; start: number; end: number }[]): string[] {
  const sorted = [...list].sort((a, b) => a.start - b.start || b.end - a.end);
  const open: { name: string; end: number }[] = [];
  const problems: string[] = [];
  for (const s of sorted) {
    while (open.length > 0 && s.start >= open.at(-1)!.end) open.pop();
    const parent = open.at(-1);
    if (parent && s.end > parent.end) problems.push(`track ${track}: ${s.name} sticks out of ${parent.name}`);
    open.push({ name: s.name, end: s.end });
  }
  return problems;
}

function isId(value: unknown): boolean {
  return Number.isInteger(value) && (value as number) >= 0;
}

function isFiniteNumber(value: unknown): boolean {
  return typeof value === 'number' && Number.isFinite(value);
}
