import { z } from 'zod';
import { ENGINE_KINDS, EndpointInputSchema, REACHABILITY } from '../../runtime/remote/endpoint-input';

export { ENGINE_KINDS };
export type { EngineKind } from '../../runtime/remote/endpoint-input';
import { REMOTE_ENGINES } from '../../telemetry/timeline/remote-facts';

/**
 * A model a remote endpoint serves, as the picker lists it: `modelId` is the reference to send
 * (`@endpoint/model`), `serverModelId` the server's own name for it.
 */
export const RemoteModelSchema = z.object({
  modelId: z.string(),
  serverModelId: z.string(),
  displayName: z.string(),
});
export type RemoteModel = z.infer<typeof RemoteModelSchema>;

/**
 * An OpenAI-compatible endpoint the user added, as Slots and the picker show it: its models
 * (remote slots), whether `/v1/models` answered, the last error a check or an answer met.
 * Never its key: `hasKey` says only whether one is stored.
 */
export const EndpointSnapshotSchema = z.object({
  endpointId: z.string(),
  name: z.string(),
  baseUrl: z.string(),
  engine: z.enum(ENGINE_KINDS),
  resolvedEngine: z.enum(REMOTE_ENGINES),
  hasKey: z.boolean(),
  reachability: z.enum(REACHABILITY),
  models: z.array(RemoteModelSchema),
  lastError: z.string().nullable(),
  checkedWallMs: z.number().nullable(),
  checkLatencyMs: z.number().nullable(),
});
export type EndpointSnapshot = z.infer<typeof EndpointSnapshotSchema>;

/** What adding an endpoint takes (the URL is checked and normalized: http(s) only). */
export const AddEndpointSchema = EndpointInputSchema.extend({
  /** Save it even when its /v1/models does not answer now (it is checked again later). */
  saveUnreachable: z.boolean().optional(),
});
