import type { ApiServerControl } from '../../service/core-options';
import { ServiceFailure } from '../../service/contract/result';
import type { ApiStatus } from '../../service/contract/methods';
import type { OpenAiService } from '../../service/openai/types';
import { startOpenAiServer } from '../openai/standalone-server';
import type { OpenAiServer } from '../openai/standalone-server';

/** Ollama's port plus one: a fixed default so tools can be pointed at it once. */
export const DEFAULT_API_PORT = 11435;

/** What the user is asked before the API turns on: where it will listen and whether a key guards it. */
export interface ApiEnableRequest {
  baseUrl: string;
  port: number;
  hasApiKey: boolean;
}

/**
 * Asks the user, in the main process (a native dialog the page cannot answer for itself),
 * whether to turn the API on as described; true = turn it on.
 */
export type ConfirmApiEnable = (request: ApiEnableRequest) => Promise<boolean>;

/**
 * The desktop app's switch for the OpenAI-compatible API: off by default; when on, a `/v1`
 * server on 127.0.0.1 behind the same Host/Origin guard, optionally with a bearer key. Turning
 * it on (or changing its port or key while on) happens only after the user confirms it in
 * `confirmEnable`, which shows the port and whether a key is set: a page cannot switch it on
 * by itself. Turning it off needs no confirmation.
 */
export function createApiToggle(
  openai: OpenAiService,
  log: (line: string) => void,
  confirmEnable: ConfirmApiEnable,
): ApiServerControl {
  let server: OpenAiServer | null = null;
  let apiKey: string | null = null;
  let port = DEFAULT_API_PORT;
  const status = (): ApiStatus => ({
    isEnabled: server !== null,
    isToggleable: true,
    baseUrl: server?.baseUrl ?? null,
    port: server?.port ?? port,
    hasApiKey: apiKey !== null,
    note: server
      ? 'listening on 127.0.0.1 only'
      : 'off; turning it on asks you to confirm, then lets programs on this computer call the model',
  });
  const stop = async () => {
    const running = server;
    server = null;
    await running?.close();
  };
  return {
    status,
    async setEnabled(input) {
      if (!input.isEnabled) {
        await stop();
        return status();
      }
      const nextPort = input.port ?? port;
      const nextKey = input.apiKey !== undefined ? input.apiKey : apiKey;
      const request = {
        baseUrl: `http://127.0.0.1:${nextPort || '(any free port)'}/v1`,
        port: nextPort,
        hasApiKey: nextKey !== null,
      };
      if (!(await confirmEnable(request)))
        throw new ServiceFailure(
          'forbidden',
          'the API stays off: turning it on was not confirmed in the dialog',
        );
      await stop();
      apiKey = nextKey;
      port = nextPort;
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
