import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { createCore } from '../../../src-main/service/create-core';
import type { PushedEvent } from '../../../src-main/service/contract/events';
import type { Core } from '../../../src-main/service/core-options';
import { openSqliteHistory } from '../../../src-main/history/history';
import { ManualClock } from '../../../src-main/telemetry/clock';
import { finishedTimelineOf } from '../../support/chat-turn';
import { BUNDLED_MODEL_ID, BUNDLED_MODELS_DIR } from '../../support/models';
import { ScriptedRunner } from '../../support/scripted-runner';
import { SCRIPTED_TIMES } from '../../support/scripted-runtime';

// The whole core (store, event hub, chat) over a runtime whose worker is scripted: when the
// worker dies with two answers decoding, the host keeps serving, each answer ends once with the
// reason, and the slot's failed event is both pushed to clients and stored in the history.

let dataDir = '';
let core: Core | null = null;
afterEach(async () => {
  await core?.close();
  core = null;
  rmSync(dataDir, { recursive: true, force: true });
});

async function send(core: Core, content: string): Promise<string> {
  const created = await core.service.call('chat.createConversation', {});
  if (!created.ok) throw new Error(created.error.message);
  const sent = await core.service.call('chat.send', {
    conversationId: created.value.conversationId,
    content,
    sampling: { temperature: 0, maxTokens: 50 },
  });
  if (!sent.ok) throw new Error(sent.error.message);
  return sent.value.requestId;
}

describe('a worker that dies under the core', () => {
  it('pushes and stores the failed event, ends each answer once with the reason, and the next answer reloads the slot', async () => {
    dataDir = mkdtempSync(path.join(os.tmpdir(), 'ff-worker-failure-'));
    const clock = new ManualClock();
    const runners: ScriptedRunner[] = [];
    core = await createCore({
      dataDir,
      bundledModelsDir: BUNDLED_MODELS_DIR,
      host: 'headless',
      runtime: {
        clock,
        createRunner: () => {
          const runner = new ScriptedRunner(clock, SCRIPTED_TIMES);
          runners.push(runner);
          return runner;
        },
      },
    });
    const pushed: PushedEvent[] = [];
    core.service.subscribe((event) => void pushed.push(event));
    const prefetched = await core.service.call('slots.prefetch', { modelId: BUNDLED_MODEL_ID });
    expect(prefetched.ok).toBe(true);
    const runner = runners[0]!;
    runner.holdNextStepAt('decode', (job) => job.decode?.rows.length === 2);
    const ids = [await send(core, 'Good morning'), await send(core, 'Good evening')];
    await runner.whenHeld();
    runner.die();

    const doneOf = (requestId: string) =>
      pushed.filter((e) => e.name === 'request.done' && e.payload.requestId === requestId);
    await expect.poll(() => ids.map((id) => doneOf(id).length)).toEqual([1, 1]);
    for (const id of ids) {
      expect(doneOf(id)[0]!.payload).toMatchObject({ finishReason: 'error' });
      expect(finishedTimelineOf(pushed, id).errorMessage).toMatch(/^the model's worker stopped/);
    }
    const failed = {
      fromStatus: 'active',
      toStatus: 'failed',
      cause: 'error',
      reason: 'the slot worker failed: scripted crash',
    };
    expect(pushed.filter((e) => e.name === 'slot.event').map((e) => e.payload)).toContainEqual(
      expect.objectContaining(failed),
    );

    const next = await send(core, 'Once more');
    await expect.poll(() => doneOf(next).length).toBe(1);
    expect(doneOf(next)[0]!.payload).toMatchObject({ finishReason: 'length' });
    expect(finishedTimelineOf(pushed, next).isColdSlot).toBe(true);
    expect(ids.map((id) => doneOf(id).length)).toEqual([1, 1]);

    await core.close();
    core = null;
    const history = openSqliteHistory(path.join(dataDir, 'history.sqlite'));
    try {
      expect(history.slotEvents.between(0, Number.MAX_SAFE_INTEGER)).toContainEqual(
        expect.objectContaining(failed),
      );
    } finally {
      history.close();
    }
  });
});
