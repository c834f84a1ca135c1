import type { ApiServerControl } from '../../service/core-options';
import { ServiceFailure } from '../../service/contract';
import type { ApiStatus } from '../../service/contract';
import type { OpenAiService } from '../../service/openai';
import { startOpenAiServer } from '../openai';
import type { OpenAiServer } from '../openai';

/** Ollama's port plus one: a fixed default so tools can be pointed at it once. */
export const DEFAULT_API_PORT = 11435;

/**
 * The desktop app's switch for the OpenAI-compatible API: off by default; when on, a `/v1`
 * server on 127.0.0.1 behind the same Host/Origin guard, optionally with a bearer key.
 */
export function createApiToggle(openai: OpenAiService, log: (line: string) => void): ApiServerControl {
  let server: OpenAiServer | null = null;
  let apiKey: string | null = null;
  const status = (): ApiStatus => ({
    isEnabled: server !== null,
    isToggleable: true,
    baseUrl: server?.baseUrl ?? null,
    hasApiKey: apiKey !== null,
    note: server ? 'listening on 127.0.0.1 only' : 'off; turn it on to let local tools call the model',
  });
  const stop = async () => {
    const running = server;
    server = null;
    await running?.close();
  };
  return {
    status,
    async setEnabled(input) {
      await stop();
      if (input.apiKey !== undefined) apiKey = input.apiKey;
      if (!input.isEnabled) return status();
      const port = input.port ?? DEFAULT_API_PORT;
      server = await startOpenAiServer({ openai, apiKey }, port).catch((error: NodeJS.ErrnoException) => {
        throw new ServiceFailure(
          'unavailable',
          error.code === 'EADDRINUSE' ? `port ${port} is in use; choose another` : error.message,
        );
      });
      log(`OpenAI-compatible API on at ${server.baseUrl}`);
      return status();
    },
    close: stop,
  };
}
