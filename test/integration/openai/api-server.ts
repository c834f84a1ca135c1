import OpenAI from 'openai';
import type { RuntimeOptions } from '../../../src-main/runtime/runtime-options';
import type { Runtime } from '../../../src-main/runtime/runtime';
import { startOpenAiServer } from '../../../src-main/host/openai/standalone-server';
import type { OpenAiServer } from '../../../src-main/host/openai/standalone-server';
import { createOpenAiService } from '../../../src-main/service/openai/service';
import { systemClock } from '../../../src-main/telemetry/clock';
import type { Timeline } from '../../../src-main/telemetry/timeline/schema';
import { createTestRuntime } from '../../support/runtime';

/** A real runtime behind a real `/v1` HTTP server, the official client, and every finished timeline. */
export interface ApiFixture {
  runtime: Runtime;
  server: OpenAiServer;
  client: OpenAI;
  timelines: Timeline[];
  /** Resolves with the timeline of `requestId` once it has finished. */
  timelineOf(requestId: string): Promise<Timeline>;
  close(): Promise<void>;
}

/** Starts the fixture; `apiKey` turns on the bearer check (the client then sends it). */
export async function startApiFixture(
  options: { apiKey?: string; runtime?: Partial<RuntimeOptions> } = {},
): Promise<ApiFixture> {
  const runtime = await createTestRuntime(options.runtime);
  const timelines: Timeline[] = [];
  const waiters = new Map<string, (t: Timeline) => void>();
  runtime.onTimeline((timeline) => {
    timelines.push(timeline);
    waiters.get(timeline.requestId)?.(timeline);
  });
  const openai = createOpenAiService({ runtime, clock: systemClock });
  const server = await startOpenAiServer({ openai, apiKey: options.apiKey ?? null });
  const client = new OpenAI({
    baseURL: server.baseUrl,
    apiKey: options.apiKey ?? 'unused',
    maxRetries: 0,
    timeout: 60_000,
  });
  return {
    runtime,
    server,
    client,
    timelines,
    timelineOf: (requestId) => {
      const done = timelines.find((t) => t.requestId === requestId);
      return done ? Promise.resolve(done) : new Promise((resolve) => waiters.set(requestId, resolve));
    },
    close: async () => {
      await server.close();
      await runtime.close();
    },
  };
}
