import path from 'node:path';
import type { LoadHost } from './load-host';
import { modelRefFor } from '../../paths';

/**
 * A First Frame (or any OpenAI-compatible) server at `baseUrl`. Its history is its own, so no
 * run is filed; client TTFTs go to its `/api` when it is a First Frame headless host.
 */
export async function connectRemoteHost(
  baseUrl: string,
  apiKey: string | null,
  modelDir: string,
  variant: string | null,
): Promise<LoadHost> {
  const response = await fetch(`${baseUrl}/models`, {
    headers: apiKey ? { Authorization: `Bearer ${apiKey}` } : {},
  });
  if (!response.ok)
    throw new Error(`GET ${baseUrl}/models answered ${response.status}: ${await response.text()}`);
  const ids = ((await response.json()) as { data: { id: string }[] }).data.map((m) => m.id);
  // Ids are `name:variant`; a bare name asks the server for that model's default variant.
  const name = path.basename(modelDir);
  const wanted = modelRefFor(modelDir, variant)!;
  const hasName = ids.some((id) => id === name || id.startsWith(`${name}:`));
  const modelId = ids.includes(wanted) || (!variant && hasName) ? wanted : ids[0];
  if (!modelId) throw new Error(`${baseUrl} lists no models`);
  const apiRoot = new URL('/api/call/', baseUrl).href;
  return {
    target: { baseUrl, apiKey },
    modelId,
    storeNote:
      'runs not stored: --url targets another process, which keeps its own history (its dashboard shows these requests live)',
    createRun: () => null,
    // Another process's clock: only the durations travel, never the send instant.
    reportClient: async (requestId, { clientTtftMs, clientE2eMs }) => {
      await fetch(`${apiRoot}timelines.reportClientTtft`, {
        method: 'POST',
        headers: { 'Content-Type': 'application/json' },
        body: JSON.stringify({ requestId, clientTtftMs, clientE2eMs }),
      }).catch(() => undefined);
    },
    timelinesOf: () => [],
    runtimeFacts: () => ({}),
    close: async () => undefined,
  };
}
