import { z } from 'zod';
import { REMOTE_ENGINES } from '../../telemetry/timeline/remote-facts';
import type { RemoteEngineName } from '../../telemetry/timeline/remote-facts';

/**
 * The engine an endpoint is read as: one of REMOTE_ENGINES, or `auto`, which asks
 * `/v1/models` (its `owned_by`) and falls back to `openai` (a server reporting only usage).
 */
export const ENGINE_KINDS = ['auto', ...REMOTE_ENGINES] as const;
/** See ENGINE_KINDS. */
export type EngineKind = (typeof ENGINE_KINDS)[number];
/** An engine once known (never `auto`). */
export type KnownEngine = RemoteEngineName;

/** Upper bound on a stored key's length: longer is not a key anyone was given. */
const MAX_KEY_CHARS = 4_096;

/**
 * Normalizes a user-given base URL: only http(s), no credentials, query or fragment, no
 * trailing slash; a bare origin (`http://host:8000`) means its `/v1`. Returns the URL or a
 * reason it cannot be used. Nothing but http(s) is ever fetched from a URL a user typed.
 */
export function normalizeBaseUrl(text: string): string | Error {
  let url: URL;
  try {
    url = new URL(text.trim());
  } catch {
    return new Error(`"${text.trim()}" is not a URL: write it like http://host:8000/v1`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:')
    return new Error(`only http:// and https:// endpoints can be added, not ${url.protocol}`);
  if (url.username || url.password)
    return new Error('put the key in the key field, not in the URL (it would be shown and stored)');
  if (url.search || url.hash) return new Error('the base URL takes no query or fragment (?… or #…)');
  const pathname = url.pathname.replace(/\/+$/, '');
  return `${url.origin}${pathname === '' ? '/v1' : pathname}`;
}

/** A base URL, checked and normalized (see normalizeBaseUrl). */
export const BaseUrlSchema = z
  .string()
  .min(1, 'the base URL is empty')
  .max(2_000)
  .transform((text, ctx) => {
    const url = normalizeBaseUrl(text);
    if (url instanceof Error) {
      ctx.addIssue({ code: 'custom', message: url.message });
      return z.NEVER;
    }
    return url;
  });

/** An API key as given: one line of printable characters (it goes into a header). */
export const ApiKeySchema = z
  .string()
  .min(1)
  .max(MAX_KEY_CHARS)
  .regex(/^[\x21-\x7e]+$/, 'a key is one line of printable characters without spaces');

/** A display name: what the picker and the slot card show. */
export const EndpointNameSchema = z.string().trim().min(1, 'give the endpoint a name').max(80);

/** What adding an endpoint takes; the key is optional (many local servers need none). */
export const EndpointInputSchema = z.object({
  name: EndpointNameSchema,
  baseUrl: BaseUrlSchema,
  apiKey: ApiKeySchema.nullable().optional(),
  engine: z.enum(ENGINE_KINDS).default('auto'),
});
/** See EndpointInputSchema (validated: URL normalized). */
export type EndpointInput = z.output<typeof EndpointInputSchema>;

/** Where an endpoint stands after its last `/v1/models` check. */
export const REACHABILITY = ['unchecked', 'reachable', 'unreachable'] as const;
/** See REACHABILITY. */
export type Reachability = (typeof REACHABILITY)[number];
