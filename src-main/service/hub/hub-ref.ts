// What the user typed to name a repository: an id (`owner/name`) or a hub URL copied from the
// browser (`https://huggingface.co/owner/name`, `…/tree/main`, `…/blob/main/file.gguf`).

/** A repository id and, when the URL named one, its revision and a file in it. */
export interface HubRef {
  /** `owner/name` (or `name` for the hub's few owner-less repositories). */
  repo: string;
  revision: string | null;
  filePath: string | null;
}

/** One segment of a repository id, as the hub allows them. */
const SEGMENT = /^[A-Za-z0-9](?:[A-Za-z0-9._-]{0,94}[A-Za-z0-9_-])?$/;
/** URL path parts after the repository that name a revision (and maybe a file). */
const REVISION_PARTS = new Set(['tree', 'blob', 'resolve']);

/**
 * Reads a repository reference, or says plainly why it is not one. `hubUrl` is the hub the app
 * talks to: a URL of another site is refused, so a pasted link never sends a token elsewhere.
 */
export function parseHubRef(text: string, hubUrl: string): HubRef | Error {
  const trimmed = text.trim();
  const isUrl = /^https?:\/\//i.test(trimmed);
  let parts: string[];
  if (isUrl) {
    let url: URL;
    try {
      url = new URL(trimmed);
    } catch {
      return new Error(`"${trimmed}" is not a web address`);
    }
    if (url.origin !== new URL(hubUrl).origin && url.hostname !== 'huggingface.co')
      return new Error(`${url.origin} is not the model hub this app uses (${new URL(hubUrl).origin})`);
    parts = url.pathname.split('/').filter(Boolean).map(decodeURIComponent);
    if (parts[0] === 'models') parts = parts.slice(1);
  } else parts = trimmed.split('/');
  const revisionAt = parts.findIndex((p) => REVISION_PARTS.has(p));
  const repoParts = revisionAt === -1 ? parts : parts.slice(0, revisionAt);
  if (repoParts.length === 0 || repoParts.length > 2 || !repoParts.every((p) => SEGMENT.test(p)))
    return new Error(
      `"${trimmed}" is not a repository: write it as owner/name (bartowski/Llama-3.2-1B-Instruct-GGUF) or paste its hub address`,
    );
  const revision = revisionAt === -1 ? null : (parts[revisionAt + 1] ?? null);
  const filePath = revisionAt === -1 ? null : parts.slice(revisionAt + 2).join('/') || null;
  return { repo: repoParts.join('/'), revision, filePath };
}
