import { createCore } from '../../src-main/service/create-core';
import type { Core, CoreOptions } from '../../src-main/service/core-options';
import { TEST_MODELS_DIR } from './runtime';

/**
 * A headless core over the test models, one runtime thread (the machine is shared), its history
 * in `dataDir`; `extra` adds or overrides options (e.g. onHistoryOpen).
 */
export function createTestCore(dataDir: string, extra: Partial<CoreOptions> = {}): Promise<Core> {
  return createCore({
    dataDir,
    bundledModelsDir: TEST_MODELS_DIR,
    host: 'headless',
    runtime: { numThreads: 1 },
    ...extra,
  });
}
