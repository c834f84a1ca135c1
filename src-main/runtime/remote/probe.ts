import { z } from 'zod';
import { jsonTextWorkProblem } from '../../json-work';
import { REMOTE_LIMITS } from '../../limits';
import { readBounded } from './bounded-body';
import type { KnownEngine } from './endpoint-input';
import { describeFetchError, describeHttpError } from './fetch-errors';

/** How long a reachability check waits for `/v1/models` (ms). */
export const PROBE_TIMEOUT_MS = 5_000;

/** What `GET /v1/models` said, or why it could not be asked. */
export type ProbeResult =
  | { isReachable: true; models: RemoteModel[]; engineHint: KnownEngine | null; latencyMs: number }
  | { isReachable: false; httpStatus: number | null; error: string; latencyMs: number };

/** One model a server lists. */
export interface RemoteModel {
  modelId: string;
  ownedBy: string | null;
}

const ModelsSchema = z.object({
  data: z.array(z.looseObject({ id: z.string().min(1).max(500), owned_by: z.string().optional() })),
});

/** `owned_by` values that name the engine (llama.cpp's server, vLLM, First Frame, Ollama). */
const OWNER_ENGINES: Record<string, KnownEngine> = {
  llamacpp: 'llama.cpp',
  vllm: 'vllm',
  'first-frame': 'first-frame',
  library: 'ollama',
  ollama: 'ollama',
};

/** Lists the endpoint's models; never throws (an unreachable endpoint is a result). */
export async function probeModels(
  baseUrl: string,
  headers: Record<string, string>,
  timeoutMs = PROBE_TIMEOUT_MS,
): Promise<ProbeResult> {
  const startedAt = performance.now();
  const url = `${baseUrl}/models`;
  const latency = () => performance.now() - startedAt;
  let response: Response;
  try {
    response = await fetch(url, { headers, signal: AbortSignal.timeout(timeoutMs), redirect: 'error' });
  } catch (error) {
    return {
      isReachable: false,
      httpStatus: null,
      error: describeFetchError(error, url),
      latencyMs: latency(),
    };
  }
  const maxBytes = response.ok ? REMOTE_LIMITS.maxListBodyBytes : REMOTE_LIMITS.maxErrorBodyBytes;
  const { text, isTruncated } = await readBounded(response, maxBytes);
  if (!response.ok)
    return {
      isReachable: false,
      httpStatus: response.status,
      error: describeHttpError(response.status, text),
      latencyMs: latency(),
    };
  const parsed = isTruncated
    ? new Error(
        `GET /models answered more than ${maxBytes / 1024 / 1024} MiB: not read (no model list is that long)`,
      )
    : (tooMuchWork(text) ?? parseModels(text));
  if (parsed instanceof Error)
    return { isReachable: false, httpStatus: response.status, error: parsed.message, latencyMs: latency() };
  const owners = parsed.map((m) => OWNER_ENGINES[m.ownedBy ?? '']).filter((e) => e !== undefined);
  return { isReachable: true, models: parsed, engineHint: owners[0] ?? null, latencyMs: latency() };
}

/** Why a model list is refused unparsed (too deep, too many items), or null. */
function tooMuchWork(text: string): Error | null {
  const problem = jsonTextWorkProblem(text, REMOTE_LIMITS.modelListWork);
  return problem === null ? null : new Error(`GET /models answered a list too large to read: ${problem}`);
}

function parseModels(text: string): RemoteModel[] | Error {
  try {
    const body = ModelsSchema.parse(JSON.parse(text));
    return body.data.map((m) => ({ modelId: m.id, ownedBy: m.owned_by ?? null }));
  } catch {
    return new Error(
      'GET /models did not answer an OpenAI model list ({"data": [{"id": …}]}): is this the API base URL (…/v1)?',
    );
  }
}
