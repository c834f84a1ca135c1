/** A benchmark: loaded lazily so one benchmark's heavy imports never slow another's start. */
export interface BenchmarkEntry {
  summary: string;
  load: () => Promise<{ run: (argv: string[]) => Promise<number> }>;
}

/** Every benchmark `npm run bench -- <name>` knows, by name. */
export const BENCHMARKS: Record<string, BenchmarkEntry> = {
  prefetch: {
    summary: 'cold model-file prefetch into a host buffer: plain vs WILLNEED vs locked (mlock), interleaved',
    load: () => import('./prefetch'),
  },
};
