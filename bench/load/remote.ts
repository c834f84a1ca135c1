import { randomUUID } from 'node:crypto';
import path from 'node:path';
import type { KnownEngine } from '../../src-main/runtime/remote/endpoint-input';
import type { RemoteRequestMeta } from '../../src-main/runtime/remote/remote-timeline';
import type { RunServerPhases } from '../../src-main/runtime/remote/vllm-metrics';
import { remoteRef } from '../../src-main/runtime/remote/endpoints';
import { readServerReport } from '../../src-main/runtime/remote/engines';
import { probeModels } from '../../src-main/runtime/remote/probe';
import { remoteTimeline } from '../../src-main/runtime/remote/remote-timeline';
import { isExtendedEngine } from '../../src-main/runtime/remote/request-body';
import { scrapeMetrics, vllmPhasesBetween } from '../../src-main/runtime/remote/vllm-metrics';
import { createHistory } from '../../src-main/history/create-history';
import type { Timeline } from '../../src-main/telemetry/timeline/schema';
import type { RequestRecord } from './driver';
import type { LoadHost } from './load-host';
import { modelRefFor } from '../../src-main/cli/paths';

/** Where the remote engine is and how the lab reaches it. */
export interface RemoteHostOptions {
  baseUrl: string;
  apiKey: string | null;
  /** The local model folder: its name (and `variant`) is asked for when the server lists it. */
  modelDir: string;
  variant: string | null;
  /** The history this lab files its runs in; null with --no-store (runs in memory only). */
  dataDir: string | null;
}

/**
 * Any OpenAI-compatible server at `baseUrl` (vLLM, llama.cpp, Ollama, another First Frame…)
 * as the lab's target. Each request goes through the remote client; after a phase its
 * timelines are built here, at the client boundary, from the client's stamps and what the
 * server reported, and filed in this lab's history under the phase's run (endpoint, engine
 * and model in the run's config), so Runs compares local and remote runs side by side. A vLLM
 * server's `/metrics` is scraped before and after each phase for run-level server phases.
 */
export async function connectRemoteHost(options: RemoteHostOptions): Promise<LoadHost> {
  const { baseUrl, apiKey } = options;
  const headers: Record<string, string> = apiKey ? { Authorization: `Bearer ${apiKey}` } : {};
  const probe = await probeModels(baseUrl, headers);
  if (!probe.isReachable) throw new Error(`${baseUrl}: ${probe.error}`);
  const modelId = pickModel(
    probe.models.map((m) => m.modelId),
    options,
  );
  const engine: KnownEngine = probe.engineHint ?? 'openai';
  const history = createHistory({
    path: options.dataDir ? path.join(options.dataDir, 'history.sqlite') : null,
    isPruning: false,
  });
  const byRun = new Map<string, Timeline[]>();
  const metrics = vllmScraper(engine, baseUrl, headers, modelId);
  const endpointId = new URL(baseUrl).host;
  const where: Where = { endpointId, modelId, baseUrl, engine };
  return {
    target: { baseUrl, apiKey },
    modelId,
    remote: { baseUrl, engine, isExtended: isExtendedEngine(engine), isOllamaNative: engine === 'ollama' },
    storeNote: history.isPersistent
      ? `runs stored in ${options.dataDir}: timelines at the client boundary, from this client's stamps and what ${engine} reported`
      : `runs not stored: ${history.unavailable?.message ?? 'history off'}`,
    createRun: (name, config) => ({
      runId: history.runs.create({ name, config }).runId,
      isStored: history.isPersistent,
    }),
    // The timelines are this lab's own, already at the client boundary.
    reportClient: async () => undefined,
    beforePhase: metrics.before,
    afterPhase: async (runId, records) => {
      const timelines = records.flatMap((r) =>
        r.remote ? [remoteTimeline(metaOf(r, runId, where), r.remote, readServerReport(r.remote))] : [],
      );
      for (const timeline of timelines) history.writer.enqueue(timeline);
      if (runId) byRun.set(runId, timelines);
      return { serverPhases: await metrics.after() };
    },
    timelinesOf: (runId) => byRun.get(runId) ?? [],
    // Runs groups it by this endpoint and model (its settings and weights are the server's).
    runtimeFacts: () => ({ endpoint: { baseUrl, engine, serverModelId: modelId } }),
    close: async () => {
      history.writer.flush();
      history.close();
    },
  };
}

/** The local model's reference when the server lists it (a bare name: its default), else the first listed. */
function pickModel(ids: string[], options: RemoteHostOptions): string {
  const name = path.basename(options.modelDir);
  const wanted = modelRefFor(options.modelDir, options.variant)!;
  const hasName = ids.some((id) => id === name || id.startsWith(`${name}:`));
  const modelId = ids.includes(wanted) || (!options.variant && hasName) ? wanted : ids[0];
  if (!modelId) throw new Error(`${options.baseUrl} lists no models`);
  return modelId;
}

/** The endpoint (named by its host), the model as the server names it, the engine. */
interface Where {
  endpointId: string;
  modelId: string;
  baseUrl: string;
  engine: KnownEngine;
}

function metaOf(r: RequestRecord, runId: string | null, where: Where): RemoteRequestMeta {
  return {
    requestId: randomUUID(),
    runId,
    conversationId: null,
    modelRef: remoteRef(where.endpointId, where.modelId),
    endpointId: where.endpointId,
    endpointName: where.endpointId,
    baseUrl: where.baseUrl,
    engine: where.engine,
    serverModelId: where.modelId,
    // clientNow is performance.timeOrigin + performance.now(): epoch ms at the send.
    wallAtSend: r.seen.sentAt,
  };
}

/**
 * vLLM's run-level phases: `/metrics` scraped before and after a phase. A failed scrape is
 * said, never zeroed; other engines have no such histograms (null).
 */
function vllmScraper(engine: KnownEngine, baseUrl: string, headers: Record<string, string>, modelId: string) {
  let before: Awaited<ReturnType<typeof scrapeMetrics>> | null = null;
  return {
    before: async () => {
      if (engine === 'vllm') before = await scrapeMetrics(baseUrl, headers);
    },
    after: async (): Promise<RunServerPhases | { error: string } | null> => {
      if (engine !== 'vllm' || before === null) return null;
      const after = await scrapeMetrics(baseUrl, headers);
      const failed = [before, after].find((s) => s instanceof Error);
      if (failed) return { error: (failed as Error).message };
      return vllmPhasesBetween(
        before as Exclude<typeof before, Error>,
        after as Exclude<typeof after, Error>,
        modelId,
      );
    },
  };
}
