/** A benchmark: loaded lazily so one benchmark's heavy imports never slow another's start. */
export interface BenchmarkEntry {
  summary: string;
  load: () => Promise<{ run: (argv: string[]) => Promise<number> }>;
}

/** Every benchmark `npm run bench -- <name>` knows, by name. */
export const BENCHMARKS: Record<string, BenchmarkEntry> = {
  'first-frame': {
    summary:
      'seed 000 first-frame runtime path: cold/resident slot × context page hit/off, floor measured side by side',
    load: () => import('./first-frame'),
  },
  prefetch: {
    summary: 'cold model-file prefetch into a host buffer: plain vs WILLNEED vs locked (mlock), interleaved',
    load: () => import('./prefetch'),
  },
  load: {
    summary:
      'offered-load lab over the OpenAI-compatible HTTP API: sync/constant/poisson/burst/sweep, client vs server TTFT, goodput',
    load: () => import('./load'),
  },
  experiment: {
    summary:
      "seed 001's experiment for any runtime setting: the same arrivals and lengths under each value (--vary seats=2,4), one stored run per arm",
    load: () => import('./experiment'),
  },
  peers: {
    summary:
      'side by side on one model folder: bare ONNX Runtime floor, @huggingface/transformers generate, First Frame',
    load: () => import('./peers'),
  },
  'step-profile': {
    summary:
      "one warm decode step's wall time split by thread: main-thread loop, hops, worker JS around session.run, session.run, GC; beside the floor",
    load: () => import('./step-profile'),
  },
  'step-nodes': {
    summary:
      "ONNX Runtime's own profile of a warm decode step on the bound path at each length of past (--past 128,2000): ms per operator and node",
    load: () => import('./step-profile/past-nodes'),
  },
  soak: {
    summary:
      'the host under valid load, hang-ups and hostile inputs for N minutes (--minutes N): served, errors by kind, timelines acknowledged vs stored, RSS',
    load: () => import('./soak'),
  },
  quality: {
    summary:
      'every variant of a model folder on held-out text: bits per byte and greedy agreement with the highest-precision variant',
    load: () => import('./quality'),
  },
  store: {
    summary:
      'history store: batched-writer inserts/s, full report over 100k stored timelines, streamed CSV export RSS',
    load: () => import('./store'),
  },
};
