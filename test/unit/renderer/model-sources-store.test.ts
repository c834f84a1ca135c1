import { describe, expect, it } from 'vitest';
import type { ModelRemoval } from '../../../src-main/service/contract/hub-schemas';
import type { DiscoveryState } from '../../../src-main/service/contract/model-schemas';
import { createModelSourcesStore } from '../../../src-renderer/store/model-sources-store';
import { createSlotsStore } from '../../../src-renderer/store/slots-store';
import { BridgeDouble } from './bridge-double';

const REMOVAL: ModelRemoval = { modelId: 'm1', paths: ['/models/Tiny.gguf'], numBytes: 1000, refusal: null };
const discovery = (isEnabled: boolean): DiscoveryState => ({ isEnabled, isPersistent: true, places: [] });

/** Both stores over one bridge: the model list the sources store re-reads is the slots store's. */
function storesOver(bridge: BridgeDouble) {
  const slots = createSlotsStore(bridge);
  return { slots, sources: createModelSourcesStore(bridge, slots) };
}

describe('the model sources store', () => {
  it('offers a removal to confirm only when the service does not refuse it', async () => {
    let refusal: string | null = null;
    const { sources } = storesOver(new BridgeDouble({ 'models.removal': () => ({ ...REMOVAL, refusal }) }));
    expect(await sources.getState().askRemoval('m1')).toEqual({ removal: REMOVAL, problem: null });
    refusal = 'Unload it first.';
    expect(await sources.getState().askRemoval('m1')).toEqual({ removal: null, problem: 'Unload it first.' });
  });

  it('re-reads the model list after a delete, so the deleted model leaves it', async () => {
    let models = [{ modelId: 'm1' }];
    const bridge = new BridgeDouble({
      'models.delete': () => ((models = []), REMOVAL),
      'models.list': () => models as never,
    });
    const { slots, sources } = storesOver(bridge);
    await slots.getState().refresh();
    expect(slots.getState().models).toHaveLength(1);
    expect(await sources.getState().deleteModel('m1')).toBeNull();
    expect(slots.getState().models).toEqual([]);
  });

  it('turns discovery on and re-reads the model list (its models come in)', async () => {
    const bridge = new BridgeDouble({
      'models.discovery': () => discovery(false),
      'models.setDiscovery': (input) => discovery(input.isEnabled),
    });
    const { sources } = storesOver(bridge);
    await sources.getState().openDiscovery();
    expect(sources.getState().discovery?.isEnabled).toBe(false);
    await sources.getState().setDiscovery(true);
    expect(sources.getState()).toMatchObject({ discovery: discovery(true), discoveryProblem: null });
    expect(bridge.inputsOf('models.list')).toHaveLength(1);
  });

  it("resolves opening the models folder with the service's refusal, or null", async () => {
    const opening = storesOver(new BridgeDouble({ 'app.openModelsFolder': () => ({ path: '/models' }) }));
    expect(await opening.sources.getState().openModelsFolder()).toBeNull();
    const refusing = storesOver(new BridgeDouble({}));
    expect(await refusing.sources.getState().openModelsFolder()).toBe('app.openModelsFolder not answered');
  });
});
