/**
 * Whether a slot's load built from ONNX Runtime's cached optimized graph (`hit`), saved one
 * (`saved`), or neither (`off`, with the reason). A leaf module: the worker protocol and the
 * service contract (which the renderer bundles) both derive from it.
 */
export const GRAPH_CACHE_STATUSES = ['hit', 'saved', 'off'] as const;
export type GraphCacheStatus = (typeof GRAPH_CACHE_STATUSES)[number];
