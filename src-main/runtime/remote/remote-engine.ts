import type { Clock } from '../../telemetry/clock';
import type { Timeline } from '../../telemetry/timeline/schema';
import type { GenerationRequest, GenerationSink } from '../scheduler/request';
import { readServerReport } from './engines';
import type { RemoteEndpoints } from './endpoints';
import { parseRemoteRef } from './endpoints';
import { emptyObservation } from './observation';
import type { RemoteObservation } from './observation';
import { planRemoteCall } from './request-body';
import type { RemoteRequestMeta } from './remote-timeline';
import { remoteTimeline } from './remote-timeline';
import type { StreamBounds } from './stream-call';
import { streamCall } from './stream-call';

/**
 * Runs requests on remote engines: a model reference `@endpoint/model` is sent to that
 * endpoint, streamed back chunk by chunk, and finished with a timeline at the client boundary
 * (remote-timeline.ts). A failure ends that answer with a clear message and touches nothing
 * else; the endpoint keeps it as its last error.
 */
export class RemoteEngine {
  private readonly running = new Map<string, AbortController>();
  private readonly listeners = new Set<(timeline: Timeline) => void>();

  /**
   * `limits` reads the time limits each new request gets (the first-byte limit is a runtime
   * setting, read at each send); unset ones keep stream-call.ts's defaults.
   */
  constructor(
    readonly endpoints: RemoteEndpoints,
    private readonly clock: Clock,
    private readonly limits: () => Partial<Omit<StreamBounds, 'maxTokens'>> = () => ({}),
  ) {}

  /** True when `modelId` names a remote slot (whether or not its endpoint exists). */
  static isRemote(modelId: string | null | undefined): boolean {
    return typeof modelId === 'string' && parseRemoteRef(modelId) !== null;
  }

  get numRunning(): number {
    return this.running.size;
  }

  /** Starts a request; the sink gets its chunks and one outcome (never an exception). */
  submit(request: GenerationRequest, sink: GenerationSink): void {
    void this.run(request, sink);
  }

  /** True while a request with this id is streaming. */
  isInFlight(requestId: string): boolean {
    return this.running.has(requestId);
  }

  /** Cancels a running remote request; false when it is unknown or finished. */
  cancel(requestId: string): boolean {
    const controller = this.running.get(requestId);
    controller?.abort();
    return controller !== undefined;
  }

  /** Cancels everything still running. */
  cancelAll(): void {
    for (const controller of this.running.values()) controller.abort();
  }

  onTimeline(listener: (timeline: Timeline) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  private async run(request: GenerationRequest, sink: GenerationSink): Promise<void> {
    const wallAtSend = this.clock.wallNow();
    const resolved = this.resolve(request);
    if (typeof resolved === 'string') return this.finish(request, sink, resolved);
    const { meta, headers } = { meta: { ...resolved.meta, wallAtSend }, headers: resolved.headers };
    const plan = planRemoteCall(meta.baseUrl, meta.engine, meta.serverModelId, request);
    const controller = new AbortController();
    this.running.set(request.requestId, controller);
    const seen = await streamCall({
      ...plan,
      headers,
      now: () => this.clock.now(),
      callAt: (atMs, fire) => this.clock.callAt(atMs, fire),
      bounds: {
        ...this.limits(),
        ...(request.maxTokens === undefined ? {} : { maxTokens: request.maxTokens }),
      },
      signal: controller.signal,
      onText: (text) => sink.onChunk({ requestId: request.requestId, text, tokenIds: [], numTokens: 1 }),
    });
    this.running.delete(request.requestId);
    if (seen.failure && seen.failure.kind !== 'cancelled')
      this.endpoints.noteError(meta.endpointId, seen.failure.message);
    this.complete(meta, seen, sink);
  }

  /** The endpoint, model and headers for a request, or why it cannot be sent. */
  private resolve(
    request: GenerationRequest,
  ): { meta: RemoteRequestMeta; headers: Record<string, string> } | string {
    const ref = parseRemoteRef(request.modelId ?? '');
    if (!ref) return `"${request.modelId}" is not a remote model reference (@endpoint/model)`;
    const endpoint = this.endpoints.get(ref.endpointId);
    if (!endpoint) return `no endpoint "${ref.endpointId}": add it in Slots, or pick another model`;
    let headers: Record<string, string>;
    try {
      headers = this.endpoints.headersOf(endpoint.endpointId);
    } catch (error) {
      return (error as Error).message;
    }
    return {
      headers,
      meta: {
        requestId: request.requestId,
        runId: request.runId ?? null,
        conversationId: request.conversationId ?? null,
        modelRef: request.modelId!,
        endpointId: endpoint.endpointId,
        endpointName: endpoint.name,
        baseUrl: endpoint.baseUrl,
        engine: endpoint.resolvedEngine,
        serverModelId: ref.modelId,
        wallAtSend: 0,
      },
    };
  }

  /** A request refused before anything was sent (unknown endpoint, unreadable key). */
  private finish(request: GenerationRequest, sink: GenerationSink, message: string): void {
    const seen = emptyObservation(this.clock.now());
    seen.failure = { kind: 'invalid', message };
    const ref = parseRemoteRef(request.modelId ?? '');
    const meta: RemoteRequestMeta = {
      requestId: request.requestId,
      runId: request.runId ?? null,
      conversationId: request.conversationId ?? null,
      modelRef: request.modelId ?? '',
      endpointId: ref?.endpointId ?? '',
      endpointName: ref?.endpointId ?? '',
      baseUrl: '',
      engine: 'openai',
      serverModelId: ref?.modelId ?? '',
      wallAtSend: this.clock.wallNow(),
    };
    this.complete(meta, seen, sink, 'not_found');
  }

  private complete(
    meta: RemoteRequestMeta,
    seen: RemoteObservation,
    sink: GenerationSink,
    code: 'not_found' | null = null,
  ): void {
    const timeline = remoteTimeline(meta, seen, readServerReport(seen));
    for (const listener of this.listeners) listener(timeline);
    const isFailed = seen.failure !== null && seen.failure.kind !== 'cancelled';
    sink.onDone({
      requestId: meta.requestId,
      text: seen.text,
      timeline,
      errorMessage: isFailed ? `${meta.endpointName || 'remote endpoint'}: ${seen.failure!.message}` : null,
      errorCode: isFailed
        ? (code ?? (timeline.finishReason === 'rejected' ? 'queue_full' : 'unavailable'))
        : null,
    });
  }
}
