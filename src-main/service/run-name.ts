/**
 * A stored run's readable name: what made it, on which model, and when (local time, to the
 * minute): "Load test · ff-austen-mini:fp16 · 14 May 2026, 14:20". The user can rename it.
 */
export function runName(source: string, modelId: string | null, startedWallMs: number): string {
  const when = new Date(startedWallMs).toLocaleString('en-GB', {
    day: 'numeric',
    month: 'short',
    year: 'numeric',
    hour: '2-digit',
    minute: '2-digit',
  });
  return [source, modelId, when].filter((part) => part !== null).join(' · ');
}
