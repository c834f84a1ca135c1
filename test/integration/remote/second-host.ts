import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { RemoteEndpoints } from '../../../src-main/runtime/remote/endpoints';
import type { EndpointState } from '../../../src-main/runtime/remote/endpoints';
import type { ApiFixture } from '../openai/api-server';
import { startApiFixture } from '../openai/api-server';

/** The key the second host is started with. */
export const SECOND_HOST_KEY = 'sk-second-host-0001';

/**
 * A second First Frame (a real runtime behind its real `/v1` HTTP server) as the remote
 * engine, and an endpoints registry (its own data folder) that knows it under `Second host`.
 */
export interface SecondHost {
  host: ApiFixture;
  endpoints: RemoteEndpoints;
  endpoint: EndpointState;
  dataDir: string;
  close(): Promise<void>;
}

/** Starts the second host and adds it as an endpoint (with its key). */
export async function startSecondHost(): Promise<SecondHost> {
  const host = await startApiFixture({ apiKey: SECOND_HOST_KEY });
  const dataDir = mkdtempSync(path.join(tmpdir(), 'ff-remote-'));
  const endpoints = new RemoteEndpoints(dataDir);
  const endpoint = await endpoints.add({
    name: 'Second host',
    baseUrl: host.server.baseUrl,
    apiKey: SECOND_HOST_KEY,
  });
  return { host, endpoints, endpoint, dataDir, close: () => host.close() };
}
