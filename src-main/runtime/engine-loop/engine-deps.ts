import type { Clock } from '../../telemetry/clock';
import type { Log } from '../../telemetry/log';
import type { ModelCatalogue } from '../model';
import type { PageStore } from '../pages';
import type { SlotRegistry } from '../slots';
import type { RequestLimits, Scheduler } from '../scheduler';
import type { OffThreadPrompts } from '../tokenize';

/** The loop's collaborators; all built by the runtime factory. */
export interface EngineDeps {
  clock: Clock;
  catalogue: ModelCatalogue;
  registry: SlotRegistry;
  scheduler: Scheduler;
  store: PageStore | null;
  pageSize: number;
  limits: RequestLimits;
  /** Renders slow chat templates and tokenizes long prompts off the serving thread; null: all inline. */
  promptThreads: OffThreadPrompts | null;
  /** Hears what a user is not shown (ONNX Runtime's raw error text). */
  log: Log;
}
