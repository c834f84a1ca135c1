import { describe, expect, it } from 'vitest';
import type { PageStats } from '../../../src-main/service/contract/schemas';
import { createSlotsStore } from '../../../src-renderer/store/slots-store';
import { BridgeDouble } from './bridge-double';

// Only the disk tier's page count matters to these tests.
const statsWith = (numPages: number) => ({ disk: { state: 'on', numPages } }) as unknown as PageStats;

describe("the slots store's remembered context", () => {
  it("forgets one model's pages or every model's, then reads the totals again", async () => {
    let numPages = 5;
    const bridge = new BridgeDouble({
      'pages.stats': () => statsWith(numPages),
      'pages.forget': (input) => {
        const forgot = input.modelId === undefined ? numPages : 2;
        numPages -= forgot;
        return { numPages: forgot };
      },
    });
    const store = createSlotsStore(bridge);
    await store.getState().refreshPageStats();
    expect(store.getState().pages?.disk.numPages).toBe(5);
    expect(await store.getState().forgetPages('m1')).toBe(2);
    expect(store.getState().pages?.disk.numPages).toBe(3);
    expect(await store.getState().forgetPages(null)).toBe(3);
    expect(bridge.inputsOf('pages.forget')).toEqual([{ modelId: 'm1' }, {}]);
    expect(store.getState().pages?.disk.numPages).toBe(0);
  });

  it("resolves a refused forget with the service's sentence", async () => {
    const store = createSlotsStore(new BridgeDouble({}));
    expect(await store.getState().forgetPages(null)).toBe('pages.forget not answered');
  });
});
