/** An edge in its own unit: [50, "ms"], [1.6, "s"]. */
function edgeParts(ms: number): [number, string] {
  return ms >= 1000 ? [Number((ms / 1000).toFixed(1)), 's'] : [Number(ms.toFixed(1)), 'ms'];
}

/** "100–200 ms", "800 ms–1.6 s", or "≥ 12.8 s" for the open last bucket. */
export function bucketLabel(edgesMs: readonly number[], i: number): string {
  const [from, fromUnit] = edgeParts(edgesMs[i] ?? 0);
  const next = edgesMs[i + 1];
  if (next === undefined) return `≥ ${from} ${fromUnit}`;
  const [to, toUnit] = edgeParts(next);
  return fromUnit === toUnit ? `${from}–${to} ${toUnit}` : `${from} ${fromUnit}–${to} ${toUnit}`;
}
