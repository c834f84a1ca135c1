import { z } from 'zod';
import { AppStatusSchema } from './methods';
import { FINISH_REASONS } from '../../telemetry/timeline/schema';
import { EngineStatsSchema, ProblemSchema, SlotEventSchema, TimelineSchema } from './schemas';
import { ConversionProgressSchema } from './model-schemas';
import { EndpointSnapshotSchema } from './endpoint-schemas';
import { ProviderAvailabilitySchema } from '../../runtime/slot-worker/providers';
import { HubDownloadSchema } from './hub-schemas';

/**
 * Everything the core pushes to clients, by name. Transports batch and throttle these
 * (a fast stream must not flood the renderer) and validate each payload.
 */
export const EVENTS = {
  /** A request is waiting; `position` counts requests ahead of it (0 = next). */
  'request.queued': z.object({ requestId: z.string(), position: z.number().int().min(0) }),
  /** Text produced since the previous chunk of this request. */
  'request.chunk': z.object({ requestId: z.string(), text: z.string(), numTokens: z.number().int().min(0) }),
  /**
   * A chat request finished: how, and the stored answer's id (null when nothing was stored).
   * Its timeline is pushed once, in `timeline.finished`, right after.
   */
  'request.done': z.object({
    requestId: z.string(),
    finishReason: z.enum(FINISH_REASONS),
    messageId: z.string().nullable(),
  }),
  /** Any finished timeline (chat, API, bench), complete and checked: the dashboard's and the chat's feed. */
  'timeline.finished': z.object({ timeline: TimelineSchema }),
  'slot.event': SlotEventSchema,
  /** A slot's conversion moved on (a GGUF file into the graph cache): bytes done of the total. */
  'slot.conversion': z.object({
    slotId: z.string(),
    modelId: z.string(),
    progress: ConversionProgressSchema,
  }),
  /** A download from the hub moved on (throttled), or ended: done, failed or cancelled. */
  'hub.download': HubDownloadSchema,
  /** The core logged a problem a user should see (it is in `<dataDir>/logs/first-frame.log` too). */
  'app.problem': ProblemSchema,
  'engine.stats': EngineStatsSchema,
  'bench.progress': z.object({
    benchId: z.string(),
    numDone: z.number().int(),
    numTotal: z.number().int(),
    label: z.string(),
  }),
  'bench.done': z.object({
    benchId: z.string(),
    runId: z.string().nullable(),
    /** Every run the bench filed (an experiment files one per arm). */
    runIds: z.array(z.string()).optional(),
    error: z.string().nullable(),
  }),
  /** The app's status changed (history became degraded, recovered, or turned off). */
  'app.status': AppStatusSchema,
  /** The one probe of this start found which execution providers can run here (Settings updates). */
  'providers.checked': z.object({ providers: z.array(ProviderAvailabilitySchema) }),
  /** What the latest check of every remote endpoint found (at start, then periodically). */
  'endpoints.checked': z.object({ endpoints: z.array(EndpointSnapshotSchema) }),
} as const;

/** The name of a pushed event (a key of EVENTS). */
export type EventName = keyof typeof EVENTS;
/** The payload of a pushed event. */
export type EventPayload<E extends EventName> = z.infer<(typeof EVENTS)[E]>;
/** One pushed event as it travels, inside a batch. */
export type PushedEvent = { [E in EventName]: { name: E; payload: EventPayload<E> } }[EventName];
