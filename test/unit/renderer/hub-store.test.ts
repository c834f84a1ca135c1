import { describe, expect, it } from 'vitest';
import type { HubChoice, HubDownload, HubRepo } from '../../../src-main/service/contract/hub-schemas';
import { createHubStore as createHubStoreOver } from '../../../src-renderer/store/hub-store';
import { createSlotsStore } from '../../../src-renderer/store/slots-store';
import { BridgeDouble } from './bridge-double';

const CHOICE: HubChoice = {
  filePath: 'Tiny-Q4_K_M.gguf',
  kind: 'gguf',
  modelName: 'Tiny-Q4_K_M',
  quant: 'Q4_K_M',
  numFiles: 1,
  numBytes: 1000,
  hasSha256: true,
  isInModelsFolder: false,
};
const REPO: HubRepo = {
  repo: 'someone/Tiny-GGUF',
  revision: 'abc1234def',
  choices: [CHOICE],
  numOtherFiles: 0,
  accessNote: null,
  freeBytes: null,
};
const started = (input: { repo: string; revision: string; filePath: string }): HubDownload => ({
  ...input,
  downloadId: 'd1',
  modelName: CHOICE.modelName,
  state: 'downloading',
  bytesDone: 0,
  bytesTotal: 1000,
  bytesPerS: null,
  canResume: false,
  error: null,
  isVerified: null,
  startedAtWallMs: 0,
});

/** A hub store over `bridge`, re-reading the model list of a slots store over the same bridge. */
const createHubStore = (bridge: BridgeDouble) => createHubStoreOver(bridge, createSlotsStore(bridge));

describe('the hub store', () => {
  it('downloads a choice at the commit the look-up saw', async () => {
    const bridge = new BridgeDouble({ 'hub.files': () => REPO, 'hub.download': started });
    const store = createHubStore(bridge);
    await store.getState().look('someone/Tiny-GGUF');
    expect(store.getState()).toMatchObject({ repo: REPO, problem: null, isLooking: false });
    await store.getState().start(CHOICE);
    expect(bridge.inputsOf('hub.download')).toEqual([
      { repo: REPO.repo, revision: REPO.revision, filePath: CHOICE.filePath },
    ]);
  });

  it("shows a failed look-up's sentence in place of the repository", async () => {
    const store = createHubStore(new BridgeDouble({}));
    await store.getState().look('nobody/none');
    expect(store.getState()).toMatchObject({
      repo: null,
      problem: 'hub.files not answered',
      isLooking: false,
    });
  });

  it('forgets the repository looked up when "Add a model" opens again', async () => {
    const store = createHubStore(new BridgeDouble({ 'hub.files': () => REPO }));
    await store.getState().look('someone/Tiny-GGUF');
    store.getState().open();
    expect(store.getState()).toMatchObject({ repo: null, problem: null });
  });

  it("resumes a failed download by its file and commit, resolving with the service's refusal", async () => {
    const download = {
      ...started({ repo: REPO.repo, revision: 'r0', filePath: 'a.gguf' }),
      state: 'failed' as const,
    };
    const bridge = new BridgeDouble({ 'hub.download': started });
    expect(await createHubStore(bridge).getState().resume(download)).toBeNull();
    expect(bridge.inputsOf('hub.download')).toEqual([
      { repo: REPO.repo, revision: 'r0', filePath: 'a.gguf' },
    ]);
    expect(await createHubStore(new BridgeDouble({})).getState().resume(download)).toBe(
      'hub.download not answered',
    );
  });

  it("puts a download's newer snapshot in place, a new try replaces the model's earlier one, and done re-reads the models", async () => {
    const bridge = new BridgeDouble({ 'models.list': () => [] });
    const store = createHubStore(bridge);
    const first = { ...started({ repo: REPO.repo, revision: 'r0', filePath: 'a.gguf' }), downloadId: 'd1' };
    const retry = { ...first, downloadId: 'd2' };
    store.getState().onEvents([{ name: 'hub.download', payload: first }]);
    store.getState().onEvents([{ name: 'hub.download', payload: { ...first, bytesDone: 500 } }]);
    expect(store.getState().downloads).toEqual([{ ...first, bytesDone: 500 }]);
    expect(bridge.inputsOf('models.list')).toHaveLength(0);
    store.getState().onEvents([{ name: 'hub.download', payload: { ...retry, state: 'done' } }]);
    expect(store.getState().downloads.map((d) => d.downloadId)).toEqual(['d2']);
    expect(bridge.inputsOf('models.list')).toHaveLength(1);
  });
});
