import type { Clock } from '../../telemetry/clock';
import type { Log } from '../../telemetry/log/log';
import type { PageIdentity } from '../pages/page-key';
import type { ProviderChoice } from '../slot-worker/providers';
import type { SpareWorker } from '../slot-worker/spare-worker';
import type { SlotRunner } from './slot';
import type { CatalogueModel } from '../model/catalogue';

/** Settings of the registry: the resident budget and how slots are built. */
export interface SlotRegistryOptions {
  clock: Clock;
  /** Hears what cannot be handed back: an idle slot that would not unload, a worker that would not close. */
  log: Log;
  budgetBytes: number;
  pageSize: number;
  numThreads: number;
  /** Whether a session's pool threads spin while a run computes (the setting). */
  canSpinThreads: boolean;
  /** Whether a load may rewrite a decoder exported in the naive form into the fused form (the setting). */
  canFuseAtLoad: boolean;
  /** Folder of ONNX Runtime's optimized graphs (per model revision, machine, provider); null: none. */
  graphCacheDir: string | null;
  /** The execution provider a model's slot asks for, and whether cpu may stand in. */
  providerFor: (modelId: string) => ProviderChoice;
  createRunner: () => SlotRunner;
  /**
   * The worker started ahead of need that createRunner takes (null: none, e.g. a test double's
   * runner): started with the registry, refilled when no slot is loading or running, closed with it.
   */
  spare: SpareWorker | null;
  /**
   * Readies a model whose first load converts it (a GGUF): converts when still needed, telling
   * `onProgress` the bytes done, and resolves with the model as converted (its graph read).
   */
  prepareModel: (
    model: CatalogueModel,
    onProgress: (bytesDone: number, bytesTotal: number) => void,
  ) => Promise<CatalogueModel>;
  /** Forgets an unloaded session's context pages (they can never be hit again). */
  dropPages: (identity: PageIdentity) => void;
}
