/**
 * `npm run bench -- soak [--minutes N] [--clients N] [--json]`: the headless host in a process
 * of its own under a mix of valid load, client hang-ups and hostile inputs for N minutes, with
 * another process taking the history lock now and then and one 50 MB trace import. Prints
 * requests served, answers by kind, surprises, timelines acknowledged vs stored, and the
 * host's RSS at start, peak and end. Exits 1 if the host died, answered anything unexpectedly,
 * or stored fewer timelines than it acknowledged. `--phases [--phase-seconds N]` runs the heavy
 * inputs one at a time instead, each beside a small-chat probe (phases.ts).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { seededRandom } from '../../src-main/runtime/sampling/rng';
import type { SoakContext } from './actions';
import { SOAK_ACTIONS } from './actions';
import { countFinishedTimelines, holdLockPeriodically, importBulkTrace } from './background';
import { exchange, postJson } from './exchange';
import { formatSoak } from './report';
import { formatPhases } from './phases-report';
import { runPhases } from './phases';
import type { SoakResult } from './report';
import { startServer } from './server-process';
import { Tally } from './tally';
import { countStored } from './stored';
import { print } from '../../src-main/printable';

/** Runs the soak; resolves with the exit code. */
export async function run(argv: string[]): Promise<number> {
  const { values } = parseArgs({
    args: argv,
    options: {
      minutes: { type: 'string', default: '10' },
      clients: { type: 'string', default: '4' },
      json: { type: 'boolean', default: false },
      phases: { type: 'boolean', default: false },
      'phase-seconds': { type: 'string', default: '60' },
    },
  });
  if (values.phases) return runPhasesCommand(Number(values['phase-seconds']), values.json);
  const minutes = Number(values.minutes);
  const numClients = Number(values.clients);
  if (!(minutes > 0) || !Number.isInteger(numClients) || numClients < 1)
    throw new Error('--minutes must be positive and --clients a positive whole number');
  const dataDir = mkdtempSync(path.join(os.tmpdir(), 'ff-soak-'));
  try {
    const result = await soak(dataDir, minutes * 60_000, numClients);
    print(values.json ? JSON.stringify(result, null, 2) : formatSoak(result).join('\n'));
    return result.isPassed ? 0 : 1;
  } finally {
    rmSync(dataDir, { recursive: true, force: true });
  }
}

/** `--phases`: one heavy input at a time, with the small-chat probe (phases.ts). */
async function runPhasesCommand(phaseSeconds: number, isJson: boolean): Promise<number> {
  if (!(phaseSeconds > 0)) throw new Error('--phase-seconds must be positive');
  const dataDir = mkdtempSync(path.join(os.tmpdir(), 'ff-soak-phases-'));
  try {
    const result = await runPhases(dataDir, phaseSeconds);
    print(isJson ? JSON.stringify(result, null, 2) : formatPhases(result).join('\n'));
    return result.isPassed ? 0 : 1;
  } finally {
    rmSync(dataDir, { recursive: true, force: true });
  }
}

async function soak(dataDir: string, durationMs: number, numClients: number): Promise<SoakResult> {
  const server = await startServer(dataDir);
  const tally = new Tally();
  const models = JSON.parse((await exchange(`${server.url}v1/models`)).text) as { data: { id: string }[] };
  const modelId = models.data[0]!.id;
  await postJson(`${server.url}v1/chat/completions`, {
    model: modelId,
    messages: [{ role: 'user', content: 'warm up' }],
    max_tokens: 1,
  });
  const rss = { startBytes: server.rssBytes(), peakBytes: 0, endBytes: 0 };
  const sampler = setInterval(() => (rss.peakBytes = Math.max(rss.peakBytes, server.rssBytes())), 500);
  const stopCounting = countFinishedTimelines(server.url, tally);
  const locks = holdLockPeriodically(path.join(dataDir, 'history.sqlite'), 120_000, 15_000);
  const startAt = performance.now();
  const deadline = startAt + durationMs;
  const notes: string[] = [];
  const bulk = delay(durationMs / 3).then(() =>
    importBulkTrace(server.url, tally, 50).then((note) => notes.push(note)),
  );
  let counter = 0;
  const clients = Array.from({ length: numClients }, async (_, i) => {
    const ctx = await clientContext(server.url, server.port, modelId, tally, () => ++counter, i);
    const random = seededRandom(i + 1);
    while (performance.now() < deadline && server.isAlive()) await pick(random).run(ctx);
  });
  await Promise.all([...clients, bulk]);
  const elapsedMs = performance.now() - startAt;
  const numLocksHeld = await locks.stop();
  await quiet(server.url);
  rss.endBytes = server.rssBytes();
  clearInterval(sampler);
  stopCounting();
  const wasAlive = server.isAlive();
  const exitCode = await server.stop();
  const stored = countStored(path.join(dataDir, 'history.sqlite'));
  const isPassed =
    wasAlive &&
    exitCode === 0 &&
    tally.surprises.length === 0 &&
    stored.numRuntime >= tally.numAcknowledged &&
    stored.numImported === tally.numImported;
  return {
    minutes: elapsedMs / 60_000,
    numClients,
    modelId,
    tally: {
      numServed: tally.numServed,
      byKind: Object.fromEntries([...tally.byKind].sort()),
      surprises: tally.surprises,
    },
    timelines: {
      numAcknowledged: tally.numAcknowledged,
      numStored: stored.numRuntime,
      numImported: tally.numImported,
      numImportStored: stored.numImported,
    },
    rssMb: { start: rss.startBytes / 2 ** 20, peak: rss.peakBytes / 2 ** 20, end: rss.endBytes / 2 ** 20 },
    numLocksHeld,
    notes,
    host: { wasAlive, exitCode, stderrTail: server.stderr.slice(-5) },
    isPassed,
  };
}

/** One virtual client: its own conversation, and the shared tally and counter. */
async function clientContext(
  url: string,
  port: number,
  modelId: string,
  tally: Tally,
  next: () => number,
  index: number,
): Promise<SoakContext> {
  const created = await postJson(`${url}api/call/chat.createConversation`, { title: `soak client ${index}` });
  const conversationId = (JSON.parse(created.text) as { value: { conversationId: string } }).value
    .conversationId;
  return { url, port, modelId, tally, conversationId, next };
}

const TOTAL_WEIGHT = SOAK_ACTIONS.reduce((sum, a) => sum + a.weight, 0);

/** A weighted pick of the next action from the client's own seeded generator (a run can be repeated). */
function pick(random: () => number) {
  let ticket = random() * TOTAL_WEIGHT;
  for (const action of SOAK_ACTIONS) {
    if (ticket < action.weight) return action;
    ticket -= action.weight;
  }
  return SOAK_ACTIONS[0]!;
}

/** Waits until history says `on` again (no lock held, nothing waiting) or 60 s pass. */
async function quiet(url: string): Promise<void> {
  for (let i = 0; i < 120; i++) {
    const status = await postJson(`${url}api/call/app.status`, {});
    if (
      status.status === 200 &&
      (JSON.parse(status.text) as { value: { historyState: string } }).value.historyState === 'on'
    )
      return;
    await delay(500);
  }
}

function delay(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
