import { copyFileSync, cpSync, mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { collectGeneration } from '../../../src-main/runtime/collect';
import { Runtime } from '../../../src-main/runtime/runtime';
import type { SlotEvent } from '../../../src-main/runtime/slots/slot-types';
import { randomModelsDir } from '../../support/models';
import { expectNothingHeld } from '../../support/runtime';

const LONG = {
  prompt: { kind: 'text' as const, text: 'It was the best of times' },
  maxTokens: 300,
  ignoreEos: true,
  temperature: 0,
};

describe('a model whose weights change while it serves', () => {
  let sourceDir: string;
  let modelsDir: string;
  let runtime: Runtime;
  beforeAll(async () => {
    sourceDir = randomModelsDir(['rev-a', 'rev-b']);
    modelsDir = mkdtempSync(path.join(os.tmpdir(), 'ff-revision-'));
    cpSync(path.join(sourceDir, 'rev-a'), path.join(modelsDir, 'm'), { recursive: true });
    runtime = await Runtime.create({ bundledModelsDir: modelsDir, numThreads: 1 });
  });
  afterAll(async () => {
    await runtime.close();
    rmSync(modelsDir, { recursive: true, force: true });
  });

  it('drains the old slot on the old weights, serves new requests from a new slot, then closes the old one', async () => {
    const events: SlotEvent[] = [];
    runtime.onSlotEvent((event) => events.push(event));
    const reference = await collectGeneration(runtime, { ...LONG, requestId: 'reference-a', modelId: 'm' });
    let numChunks = 0;
    const draining = collectGeneration(
      runtime,
      { ...LONG, requestId: 'on-old-weights', modelId: 'm' },
      () => numChunks++,
    );
    await vi.waitFor(() => expect(numChunks).toBeGreaterThan(2));

    copyFileSync(
      path.join(sourceDir, 'rev-b', 'onnx', 'model.onnx'),
      path.join(modelsDir, 'm', 'onnx', 'model.onnx'),
    );
    await runtime.refreshModels();
    const fresh = await collectGeneration(runtime, {
      ...LONG,
      maxTokens: 8,
      requestId: 'on-new-weights',
      modelId: 'm',
    });
    const oldSlotId = reference.timeline.slotId!;
    expect(fresh.timeline).toMatchObject({
      finishReason: 'length',
      slotId: `${oldSlotId}-2`,
      isColdSlot: true,
    });

    const drained = await draining;
    expect(drained.timeline).toMatchObject({
      finishReason: 'length',
      slotId: oldSlotId,
      numOutputTokens: 300,
    });
    expect(drained.tokenIds).toEqual(reference.tokenIds);
    await vi.waitFor(() => expect(runtime.slots().map((s) => s.slotId)).toEqual([`${oldSlotId}-2`]));
    const closed = events.filter((e) => e.slotId === oldSlotId).map((e) => [e.toStatus, e.reason]);
    expect(closed.slice(-2)).toEqual([
      ['evicting', 'replaced by a new revision of the model'],
      ['empty', 'replaced by a new revision of the model'],
    ]);
    expectNothingHeld(runtime);
  });
});
