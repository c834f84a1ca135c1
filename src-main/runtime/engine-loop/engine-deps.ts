import type { Clock } from '../../telemetry/clock';
import type { Log } from '../../telemetry/log/log';
import type { ModelCatalogue } from '../model/catalogue';
import type { RamPages } from '../pages/ram-pages';
import type { SlotRegistry } from '../slots/slot-registry';
import type { RequestLimits } from '../scheduler/route';
import type { Scheduler } from '../scheduler/scheduler';
import type { OffThreadPrompts } from '../tokenize/prompt-threads';

/** The loop's collaborators; all built by the runtime factory. */
export interface EngineDeps {
  clock: Clock;
  catalogue: ModelCatalogue;
  registry: SlotRegistry;
  scheduler: Scheduler;
  ramPages: RamPages | null;
  pageSize: number;
  limits: RequestLimits;
  /** Renders slow chat templates and tokenizes long prompts off the serving thread; null: all inline. */
  promptThreads: OffThreadPrompts | null;
  /** Hears what a user is not shown (ONNX Runtime's raw error text). */
  log: Log;
}
