import path from 'node:path';
import type { EndpointInput, EngineKind, KnownEngine, Reachability } from './endpoint-input';
import { EndpointInputSchema } from './endpoint-input';
import type { StoredEndpoint } from './endpoint-file';
import { readEndpointFile, writeEndpointFile } from './endpoint-file';
import { KeyFiles } from './key-file';
import type { RemoteModel } from './probe';
import { probeModels } from './probe';

/** An endpoint and what its last `/v1/models` check found (never its key). */
export interface EndpointState extends StoredEndpoint {
  reachability: Reachability;
  /** The engine the timings are read as: the one chosen, or the one `auto` detected. */
  resolvedEngine: KnownEngine;
  models: RemoteModel[];
  lastError: string | null;
  checkedWallMs: number | null;
  checkLatencyMs: number | null;
}

/** A model reference that names a remote slot: `@<endpointId>/<model id as the server spells it>`. */
export function remoteRef(endpointId: string, modelId: string): string {
  return `@${endpointId}/${modelId}`;
}

/** The endpoint and model of a remote reference, or null when `ref` is a local model. */
export function parseRemoteRef(ref: string): { endpointId: string; modelId: string } | null {
  if (!ref.startsWith('@')) return null;
  const slash = ref.indexOf('/');
  if (slash < 2 || slash === ref.length - 1) return null;
  return { endpointId: ref.slice(1, slash), modelId: ref.slice(slash + 1) };
}

/** An endpoint that failed its check before saving (no answer, or a refusal); nothing was saved. */
export class EndpointUnreachable extends Error {
  constructor(
    readonly baseUrl: string,
    readonly reason: string,
  ) {
    super(`${baseUrl} failed its check: ${reason}`);
    this.name = 'EndpointUnreachable';
  }
}

/**
 * The endpoints the user added: kept in `<dataDir>/endpoints.json` (keys in their own 0600
 * files), each with the models and reachability its last check found. Every input is
 * validated here, so any transport can call it.
 */
export class RemoteEndpoints {
  private readonly file: string;
  private readonly keys: KeyFiles;
  private readonly states = new Map<string, EndpointState>();
  /** Why the endpoints file could not be read (the app works on without it). */
  readonly loadError: string | null;

  constructor(dataDir: string) {
    this.file = path.join(dataDir, 'endpoints.json');
    this.keys = new KeyFiles(path.join(dataDir, 'endpoint-keys'));
    const stored = readEndpointFile(this.file);
    this.loadError = stored instanceof Error ? stored.message : null;
    if (stored instanceof Error) console.warn(stored.message);
    for (const e of stored instanceof Error ? [] : stored) this.states.set(e.endpointId, freshState(e));
  }

  list(): EndpointState[] {
    return [...this.states.values()];
  }

  get(endpointId: string): EndpointState | null {
    return this.states.get(endpointId) ?? null;
  }

  /**
   * Adds an endpoint (validated), checked first: one whose `/v1/models` does not answer is not
   * saved (EndpointUnreachable, with the reason) unless `saveUnreachable`. Its key is stored apart.
   */
  async add(input: unknown, options: { saveUnreachable?: boolean } = {}): Promise<EndpointState> {
    const valid: EndpointInput = EndpointInputSchema.parse(input);
    if (this.loadError) throw new Error(`endpoints cannot be saved: ${this.loadError}`);
    if (!options.saveUnreachable) {
      const headers: Record<string, string> = valid.apiKey ? { Authorization: `Bearer ${valid.apiKey}` } : {};
      const probe = await probeModels(valid.baseUrl, headers);
      if (!probe.isReachable) throw new EndpointUnreachable(valid.baseUrl, probe.error);
    }
    const endpoint: StoredEndpoint = {
      endpointId: this.uniqueId(valid.name),
      name: valid.name,
      baseUrl: valid.baseUrl,
      engine: valid.engine,
      hasKey: Boolean(valid.apiKey),
      addedWallMs: Date.now(),
    };
    if (valid.apiKey) this.keys.write(endpoint.endpointId, valid.apiKey);
    this.states.set(endpoint.endpointId, freshState(endpoint));
    this.save();
    return this.check(endpoint.endpointId);
  }

  /** Forgets an endpoint and deletes its key; false when there was none. */
  remove(endpointId: string): boolean {
    if (!this.states.delete(endpointId)) return false;
    this.keys.remove(endpointId);
    this.save();
    return true;
  }

  /** Asks `/v1/models` again: the models, reachability, latency or the error. */
  async check(endpointId: string): Promise<EndpointState> {
    const state = this.states.get(endpointId);
    if (!state) throw new Error(`no endpoint "${endpointId}"`);
    const result = await probeModels(state.baseUrl, this.headersOf(endpointId));
    const next: EndpointState = {
      ...state,
      reachability: result.isReachable ? 'reachable' : 'unreachable',
      models: result.isReachable ? result.models : state.models,
      lastError: result.isReachable ? null : result.error,
      checkedWallMs: Date.now(),
      checkLatencyMs: result.latencyMs,
      resolvedEngine: resolveEngine(state.engine, result.isReachable ? result.engineHint : null, state),
    };
    // The endpoint may have been removed while the check ran: do not bring it back.
    if (this.states.has(endpointId)) this.states.set(endpointId, next);
    return next;
  }

  /** Checks every endpoint at once (the Slots view and the picker refresh with this). */
  async checkAll(): Promise<EndpointState[]> {
    return Promise.all(this.list().map((e) => this.check(e.endpointId)));
  }

  /** Records a failure a request met (the slot card shows it as the last error). */
  noteError(endpointId: string, message: string): void {
    const state = this.states.get(endpointId);
    if (state) this.states.set(endpointId, { ...state, lastError: message });
  }

  /** Request headers for the endpoint: the bearer key when it has one. Never logged. */
  headersOf(endpointId: string): Record<string, string> {
    const key = this.states.get(endpointId)?.hasKey ? this.keys.read(endpointId) : null;
    return key ? { Authorization: `Bearer ${key}` } : {};
  }

  private uniqueId(name: string): string {
    const base =
      name
        .toLowerCase()
        .replace(/[^a-z0-9]+/g, '-')
        .replace(/^-+|-+$/g, '')
        .slice(0, 40) || 'endpoint';
    let id = base;
    for (let n = 2; this.states.has(id); n++) id = `${base}-${n}`;
    return id;
  }

  private save(): void {
    writeEndpointFile(
      this.file,
      this.list().map(({ endpointId, name, baseUrl, engine, hasKey, addedWallMs }) => ({
        endpointId,
        name,
        baseUrl,
        engine,
        hasKey,
        addedWallMs,
      })),
    );
  }
}

function freshState(e: StoredEndpoint): EndpointState {
  return {
    ...e,
    reachability: 'unchecked',
    resolvedEngine: e.engine === 'auto' ? 'openai' : e.engine,
    models: [],
    lastError: null,
    checkedWallMs: null,
    checkLatencyMs: null,
  };
}

/** The chosen engine, or for `auto` what the server's model list suggests (kept when unknown). */
function resolveEngine(chosen: EngineKind, hint: KnownEngine | null, state: EndpointState): KnownEngine {
  if (chosen !== 'auto') return chosen;
  return hint ?? state.resolvedEngine;
}
