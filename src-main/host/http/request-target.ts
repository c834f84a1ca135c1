/** A request target the host can route, or the reason it cannot (answered 400). */
export type ParsedTarget = { ok: true; url: URL } | { ok: false; message: string };

const BASE = 'http://local';

/**
 * Parses a request line's target (origin-form `/path?query`, or absolute-form) against a
 * fixed base; only the path and query are used afterwards (the Host header was checked
 * already). Every path must decode (`%zz` is refused here, once, for every route). Never throws.
 */
export function parseRequestTarget(rawTarget: string | undefined): ParsedTarget {
  const target = rawTarget ?? '/';
  let url: URL;
  try {
    url = new URL(target, BASE);
  } catch {
    return {
      ok: false,
      message: `Bad request: the request target ${quote(target)} is not a valid URL path.`,
    };
  }
  if (decodePathPart(url.pathname) === null)
    return {
      ok: false,
      message: `Bad request: the path ${quote(url.pathname)} has invalid percent-encoding.`,
    };
  return { ok: true, url };
}

/** A path segment with its percent-escapes decoded, or null when they are not valid UTF-8 escapes. */
export function decodePathPart(part: string): string | null {
  try {
    return decodeURIComponent(part);
  } catch {
    return null;
  }
}

/** The target as a person can read it in an error, shortened. */
function quote(text: string): string {
  return JSON.stringify(text.length > 200 ? `${text.slice(0, 200)}…` : text);
}
