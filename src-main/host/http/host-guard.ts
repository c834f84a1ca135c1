import { isIP } from 'node:net';

/**
 * Which Host and Origin values this server answers (DNS rebinding defence): a page on another
 * site that rebinds its name to 127.0.0.1 still sends its own name in Host and Origin, so only
 * names we know to be this machine, with the bound port, get through.
 */
export interface HostPolicy {
  port: number;
  /** Lower-case host names as they appear in a Host header (IPv6 in brackets). */
  names: ReadonlySet<string>;
  /** Bound to every interface: any IP literal is this machine (IPs cannot be rebound). */
  isAnyIpAllowed: boolean;
}

/** What the guard decided: pass, or the reason a person will read in the 403. */
export type GuardVerdict = { isAllowed: true } | { isAllowed: false; message: string };

const LOOPBACK_NAMES = ['localhost', '127.0.0.1', '[::1]'];
const WILDCARD_HOSTS = new Set(['0.0.0.0', '::', '[::]']);

/** True when the bind address listens on every interface. */
export function isWildcardHost(bindHost: string): boolean {
  return WILDCARD_HOSTS.has(bindHost);
}

/** The policy for a server bound to `bindHost:port`, plus any names the user allowed. */
export function hostPolicy(bindHost: string, port: number, extraNames: readonly string[] = []): HostPolicy {
  const names = new Set(LOOPBACK_NAMES);
  if (!isWildcardHost(bindHost)) names.add(asHostName(bindHost));
  for (const name of extraNames) names.add(asHostName(name));
  return { port, names, isAnyIpAllowed: isWildcardHost(bindHost) };
}

/** Checks the Host header (required) and the Origin header (when a browser sends one). */
export function checkHeaders(
  policy: HostPolicy,
  host: string | undefined,
  origin: string | undefined,
): GuardVerdict {
  if (!host) return deny('the request has no Host header');
  if (!isKnownAuthority(policy, host)) return deny(`Host "${host}" is not this server`);
  if (origin === undefined) return { isAllowed: true };
  const authority = originAuthority(origin);
  if (authority === null || !isKnownAuthority(policy, authority)) {
    return deny(`Origin "${origin}" is not this server; cross-site requests are refused`);
  }
  return { isAllowed: true };
}

/** `name:port` from an http(s) origin, or null for `null` and other schemes. */
function originAuthority(origin: string): string | null {
  try {
    const url = new URL(origin);
    if (url.protocol !== 'http:' && url.protocol !== 'https:') return null;
    const port = url.port || (url.protocol === 'https:' ? '443' : '80');
    return `${url.hostname}:${port}`;
  } catch {
    return null;
  }
}

function isKnownAuthority(policy: HostPolicy, authority: string): boolean {
  const match = /^(\[[^\]]+\]|[^:]+)(?::(\d+))?$/.exec(authority.trim().toLowerCase());
  if (!match) return false;
  const [, name, port] = match;
  if (Number(port ?? '80') !== policy.port) return false;
  if (policy.names.has(name!)) return true;
  return policy.isAnyIpAllowed && isIP(name!.replace(/^\[|\]$/g, '')) !== 0;
}

function asHostName(name: string): string {
  const lower = name.toLowerCase();
  return isIP(lower) === 6 ? `[${lower}]` : lower;
}

function deny(reason: string): GuardVerdict {
  return {
    isAllowed: false,
    message: `Forbidden: ${reason}. This local server only answers requests addressed to it by a local name (localhost, 127.0.0.1, [::1]) on its own port, to block DNS-rebinding attacks. Open the URL it printed at startup.`,
  };
}
