/**
 * `npm run bench -- soak --phases [--phase-seconds N]`: the host in a process of its own, one
 * hostile or heavy input at a time, each for N seconds while a probe sends small chats back to
 * back, after a baseline window of N/2 seconds without it: the probe's latency in both (request →
 * last byte, nearest rank), the host's RSS before, at peak and after each input, and timelines
 * acknowledged vs stored over the whole run. The inputs: a big vocabulary, event clients that
 * never read, heavy bodies, an over-budget prompt, hostile GGUFs dropped into the models folder
 * (hostile-files.ts), a slow chat template, and a misbehaving remote on 127.0.0.1
 * (misbehaving-remote.ts).
 */
import path from 'node:path';
import { nearestRankOf } from '../../src-main/telemetry/report/nearest-rank';
import { BUNDLED_MODELS_DIR } from '../../src-main/cli/paths';
import { countFinishedTimelines } from './background';
import { writeBigVocabModel } from './big-vocab';
import { postJson } from './exchange';
import type { LoadContext, RunningLoad } from './phase-loads';
import {
  bigVocabTopK,
  heavyTemplateBodies,
  neverReadingEventClients,
  overBudgetPrompt,
  TINY_KV_BUDGET_BYTES,
} from './phase-loads';
import { hugeArrayGguf, longTokenGguf, misbehavingRemoteChats, slowTemplateChats } from './hostile-loads';
import { HUGE_ARRAY_LENGTH, LONG_TOKEN_CHARS, writeSlowTemplateModel } from './hostile-files';
import { startServer } from './server-process';
import type { ServerProcess } from './server-process';
import { Tally } from './tally';
import { countStored } from './stored';

/**
 * One phase: the heavy input (`load`), what also runs in its baseline window (`reference`: the
 * ordinary load the input rides on, if any), the models the probe asks, and settings it needs.
 */
interface PhaseSpec {
  name: string;
  load: (ctx: LoadContext) => RunningLoad;
  reference?: (ctx: LoadContext) => RunningLoad;
  probeModels: (ctx: LoadContext) => string[];
  settings?: Record<string, unknown>;
}

/** The probe's figures on one model in one window: small chats and their latency (ms, request → last byte). */
export interface ProbeFigures {
  model: string;
  numChats: number;
  p50Ms: number | null;
  p95Ms: number | null;
  numFailed: number;
}

/** What one phase measured: the probe just before the input (baseline) and during it, side by side. */
export interface PhaseResult {
  name: string;
  baseline: ProbeFigures[];
  during: ProbeFigures[];
  rssMb: { before: number; peak: number; after: number };
  numAcknowledged: number;
  /** Characters of events the host offered every `/api/events` client during the input. */
  numEventChars: number;
  /** The input's answers by kind (surprises are unexpected answers). */
  byKind: Record<string, number>;
  surprises: string[];
}

/** The whole run. */
export interface PhasesResult {
  phaseSeconds: number;
  phases: PhaseResult[];
  timelines: { numAcknowledged: number; numStored: number };
  host: { wasAlive: boolean; exitCode: number | null; stderrTail: string[] };
  isPassed: boolean;
}

const PHASES: PhaseSpec[] = [
  {
    name: 'big vocabulary: 2 clients asking top_k=100000 on a 151,936-token model',
    load: bigVocabTopK,
    probeModels: (c) => [c.smallModel, c.bigVocabModel],
  },
  {
    name: '50 /api/events clients that never read (beside a storm of requests refused at once, each with its timeline, in both windows)',
    load: neverReadingEventClients,
    // Refusals are the cheapest way to many events: ~50 MB a minute offered to every event client.
    reference: overBudgetPrompt,
    probeModels: (c) => [c.smallModel],
    settings: { kvBudgetBytes: TINY_KV_BUDGET_BYTES },
  },
  {
    name: 'heavy bodies: 4 clients re-sending 30,000 one-character messages / 500k-deep JSON',
    load: heavyTemplateBodies,
    probeModels: (c) => [c.smallModel],
  },
  {
    name: 'over-budget prompt: K/V budget 1 MiB (both windows), a ~1,200-token prompt re-sent',
    load: overBudgetPrompt,
    probeModels: (c) => [c.smallModel],
    settings: { kvBudgetBytes: TINY_KV_BUDGET_BYTES },
  },
  {
    name: `huge-array GGUF: a header array of ${HUGE_ARRAY_LENGTH.toLocaleString('en-US')} int32s dropped into the models folder, 2 clients listing models`,
    load: hugeArrayGguf,
    probeModels: (c) => [c.smallModel],
  },
  {
    name: `long-token GGUF: a ${LONG_TOKEN_CHARS.toLocaleString('en-US')}-character vocabulary token dropped into the models folder, 2 clients listing models`,
    load: longTokenGguf,
    probeModels: (c) => [c.smallModel],
  },
  {
    name: 'slow template: 2 clients chatting with a model whose template loops 20,000 times',
    load: slowTemplateChats,
    probeModels: (c) => [c.smallModel],
  },
  {
    name: 'misbehaving remote on 127.0.0.1: a chat turn a second each at an endless SSE line, a 256 MB error body, a stall, an endless stream',
    load: misbehavingRemoteChats,
    probeModels: (c) => [c.smallModel],
  },
];

/** Runs every phase on one host; resolves with what each measured. */
export async function runPhases(dataDir: string, phaseSeconds: number): Promise<PhasesResult> {
  writeBigVocabModel(
    path.join(dataDir, 'models', 'big-vocab'),
    path.join(BUNDLED_MODELS_DIR, 'ff-austen-mini'),
  );
  writeSlowTemplateModel(path.join(dataDir, 'models'), path.join(BUNDLED_MODELS_DIR, 'ff-austen-mini'));
  const server = await startServer(dataDir);
  const counted = new Tally();
  const stopCounting = countFinishedTimelines(server.url, counted);
  const ctx: LoadContext = {
    url: server.url,
    port: server.port,
    smallModel: 'ff-austen-mini',
    bigVocabModel: 'big-vocab',
    modelsDir: path.join(dataDir, 'models'),
    tally: new Tally(),
  };
  // Warm both models (slot load, JIT) so no window pays for it.
  await probe(ctx.url, [ctx.smallModel, ctx.bigVocabModel], 5_000);
  const phases: PhaseResult[] = [];
  for (const spec of PHASES) phases.push(await runPhase(server, ctx, counted, spec, phaseSeconds * 1000));
  stopCounting();
  const wasAlive = server.isAlive();
  const exitCode = await server.stop();
  const numStored = countStored(path.join(dataDir, 'history.sqlite')).numRuntime;
  const surprises = phases.flatMap((p) => p.surprises);
  return {
    phaseSeconds,
    phases,
    timelines: { numAcknowledged: counted.numAcknowledged, numStored },
    host: { wasAlive, exitCode, stderrTail: server.stderr.slice(-5) },
    isPassed: wasAlive && exitCode === 0 && surprises.length === 0 && numStored >= counted.numAcknowledged,
  };
}

/**
 * A baseline window (the probe alone, or beside the reference load) of half the phase's length,
 * then the input for the whole length with the probe beside it: the two p95s are measured minutes
 * apart on the same host, so a machine whose other load drifts cannot fake a difference.
 */
async function runPhase(
  server: ServerProcess,
  base: LoadContext,
  counted: Tally,
  spec: PhaseSpec,
  durationMs: number,
): Promise<PhaseResult> {
  const ctx = { ...base, tally: new Tally() };
  const models = spec.probeModels(ctx);
  const restore = spec.settings ? await applySettings(ctx.url, spec.settings) : null;
  const reference = spec.reference?.(ctx) ?? null;
  const baseline = await probe(ctx.url, models, durationMs / 2);
  const numAcknowledgedBefore = counted.numAcknowledged;
  const numEventCharsBefore = counted.numEventChars;
  const before = server.rssBytes();
  let peak = before;
  const sampler = setInterval(() => (peak = Math.max(peak, server.rssBytes())), 250);
  const load = spec.load(ctx);
  const during = await probe(ctx.url, models, durationMs, server);
  await load.stop();
  const numEventChars = counted.numEventChars - numEventCharsBefore;
  await reference?.stop();
  if (restore) await applySettings(ctx.url, restore);
  clearInterval(sampler);
  // What the host keeps once the input is gone: sampled after its work settles.
  await new Promise((resolve) => setTimeout(resolve, 5_000));
  const mb = (bytes: number) => bytes / 2 ** 20;
  return {
    name: spec.name,
    baseline,
    during,
    rssMb: { before: mb(before), peak: mb(Math.max(peak, server.rssBytes())), after: mb(server.rssBytes()) },
    numAcknowledged: counted.numAcknowledged - numAcknowledgedBefore,
    numEventChars,
    byKind: Object.fromEntries([...ctx.tally.byKind].sort()),
    surprises: ctx.tally.surprises,
  };
}

/** Small chats back to back for `durationMs`, taking `models` in turn; each model's figures. */
async function probe(
  url: string,
  models: string[],
  durationMs: number,
  server: ServerProcess | null = null,
): Promise<ProbeFigures[]> {
  const seen = new Map(models.map((m) => [m, { ms: [] as number[], numFailed: 0 }]));
  const endAt = performance.now() + durationMs;
  for (let i = 0; performance.now() < endAt && (server?.isAlive() ?? true); i++) {
    const model = models[i % models.length]!;
    const startAt = performance.now();
    const isOk = await smallChat(url, model);
    if (isOk) seen.get(model)!.ms.push(performance.now() - startAt);
    else seen.get(model)!.numFailed++;
  }
  return models.map((model) => {
    const { ms, numFailed } = seen.get(model)!;
    return {
      model,
      numChats: ms.length,
      p50Ms: nearestRankOf(ms, 0.5),
      p95Ms: nearestRankOf(ms, 0.95),
      numFailed,
    };
  });
}

/** The probe: a greedy one-token answer to a two-word chat; true when it was answered 200. */
async function smallChat(url: string, model: string): Promise<boolean> {
  const answer = await postJson(`${url}v1/chat/completions`, {
    model,
    messages: [{ role: 'user', content: 'Hello there.' }],
    max_tokens: 1,
    temperature: 0,
  });
  return answer.status === 200;
}

/** Applies settings through the app's own call; resolves with the values they replaced. */
async function applySettings(url: string, patch: Record<string, unknown>): Promise<Record<string, unknown>> {
  const state = JSON.parse((await postJson(`${url}api/call/settings.get`, {})).text) as {
    value: { settings: Record<string, unknown> };
  };
  const answer = await postJson(`${url}api/call/settings.apply`, { patch });
  if (answer.status !== 200) throw new Error(`settings.apply ${JSON.stringify(patch)}: ${answer.text}`);
  return Object.fromEntries(Object.keys(patch).map((key) => [key, state.value.settings[key]]));
}
