import { describe, expect, it } from 'vitest';
import type { HubChoice, HubDownload, HubRepo } from '../../../src-main/service/contract/hub-schemas';
import { createHubStore } from '../../../src-renderer/store/hub-store';
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
});
