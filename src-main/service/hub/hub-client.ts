// The hub's HTTP layout, as huggingface.co serves it (and a test server copies it):
// `GET /api/models/{repo}[/revision/{rev}]?blobs=true` lists a repository's files with sizes and,
// for LFS files, their sha256; `GET /{repo}/resolve/{rev}/{path}` answers the file (huggingface.co
// redirects to its CDN, with `X-Linked-Size` and `X-Linked-Etag`).

import { z } from 'zod';
import { jsonTextWorkProblem } from '../../json-work';
import { HUB_LIMITS } from '../../limits';
import { readBounded } from '../../runtime/remote/bounded-body';
import { describeFetchError, safeOrigin } from '../../runtime/remote/fetch-errors';

/** The hub this app talks to when FF_HUB_URL does not say another. */
export const DEFAULT_HUB_URL = 'https://huggingface.co';

/**
 * How a file's bytes are checked: an LFS file by its sha256, a file kept in git itself by its git
 * blob id (sha1 over `blob <size>\0` and the bytes), both as the hub lists them.
 */
export interface FileCheck {
  kind: 'sha256' | 'git-blob';
  /** Lowercase hex. */
  hex: string;
}

/** A file of a repository as the hub lists it. */
export interface HubFile {
  path: string;
  /** Bytes, or null when the hub did not say. */
  numBytes: number | null;
  /** What its bytes must hash to, or null when the hub said nothing to check. */
  check: FileCheck | null;
}

/** A repository at one commit. */
export interface HubRepoInfo {
  repo: string;
  /** The commit the listing describes. */
  revision: string;
  files: HubFile[];
  /** Whether its files need its terms accepted on the hub (and a token that did). */
  isGated: boolean;
}

/** What the hub may answer for a repository; unknown fields are ignored. */
const RepoInfoSchema = z.object({
  sha: z.string().regex(/^[A-Za-z0-9._-]{1,100}$/),
  /** false, or how access is granted (`auto`, `manual`). */
  gated: z.union([z.boolean(), z.string().max(100)]).optional(),
  siblings: z.array(
    z.object({
      rfilename: z.string().min(1).max(1000),
      size: z.number().int().min(0).optional(),
      blobId: z
        .string()
        .regex(/^[0-9a-f]{40}$/i)
        .optional(),
      lfs: z
        .object({ sha256: z.string().regex(/^[0-9a-f]{64}$/i), size: z.number().int().min(0) })
        .optional(),
    }),
  ),
});

/**
 * The hub at `baseUrl` (validated: http or https), with a token when one is given (HF_TOKEN).
 * The token goes in the Authorization header only, to that origin only; no message names it.
 */
export class HubClient {
  readonly baseUrl: string;

  constructor(
    baseUrl: string,
    private readonly token: string | null,
  ) {
    const url = new URL(baseUrl);
    if (url.protocol !== 'http:' && url.protocol !== 'https:')
      throw new Error(`the hub address must be http or https, not ${url.protocol}`);
    this.baseUrl = url.href.replace(/\/+$/, '');
  }

  /** Whether a token (HF_TOKEN) is sent. */
  get hasToken(): boolean {
    return this.token !== null;
  }

  /** Headers for a request to the hub (the token, when there is one). */
  headers(): Record<string, string> {
    return this.token ? { authorization: `Bearer ${this.token}` } : {};
  }

  /** The address of one file at one commit. */
  fileUrl(repo: string, revision: string, filePath: string): string {
    const encoded = filePath.split('/').map(encodeURIComponent).join('/');
    return `${this.baseUrl}/${repo}/resolve/${encodeURIComponent(revision)}/${encoded}`;
  }

  /** The repository's files at `revision` (its default branch when null), or an Error in words. */
  async repoInfo(repo: string, revision: string | null): Promise<HubRepoInfo | Error> {
    const at = revision === null ? '' : `/revision/${encodeURIComponent(revision)}`;
    const url = `${this.baseUrl}/api/models/${repo}${at}?blobs=true`;
    let response: Response;
    try {
      response = await fetch(url, {
        headers: this.headers(),
        signal: AbortSignal.timeout(HUB_LIMITS.repoInfoTimeoutMs),
      });
    } catch (error) {
      return new Error(`could not reach the hub: ${describeFetchError(error, url)}`);
    }
    const { text, isTruncated } = await readBounded(response, HUB_LIMITS.maxRepoInfoBytes);
    if (!response.ok) return new Error(hubStatusWords(response.status, repo, url, this.token !== null));
    if (isTruncated) return new Error(`the hub's listing of ${repo} is larger than the app reads`);
    const problem = jsonTextWorkProblem(text, HUB_LIMITS.repoInfoWork);
    if (problem) return new Error(`the hub's listing of ${repo} is too large to read: ${problem}`);
    let parsed: z.infer<typeof RepoInfoSchema>;
    try {
      parsed = RepoInfoSchema.parse(JSON.parse(text));
    } catch {
      return new Error(`${safeOrigin(url)} did not answer a model repository listing for ${repo}`);
    }
    // A path that could lead out of the models folder is never offered, whatever the hub says.
    const files = parsed.siblings
      .filter((s) => isPlainRepoPath(s.rfilename))
      .map((s) => ({
        path: s.rfilename,
        numBytes: s.lfs?.size ?? s.size ?? null,
        check: checkOf(s),
      }));
    return { repo, revision: parsed.sha, files, isGated: Boolean(parsed.gated) };
  }
}

/** True for a relative path of plain segments: no `..`, no empty segment, no backslash or control character. */
export function isPlainRepoPath(filePath: string): boolean {
  if (filePath.includes('\\') || [...filePath].some((c) => c.charCodeAt(0) < 0x20)) return false;
  return filePath.split('/').every((segment) => segment !== '' && segment !== '.' && segment !== '..');
}

/** An LFS file's sha256, else a git file's blob id when its size is known (the id hashes it), else null. */
function checkOf(sibling: z.infer<typeof RepoInfoSchema>['siblings'][number]): FileCheck | null {
  if (sibling.lfs) return { kind: 'sha256', hex: sibling.lfs.sha256.toLowerCase() };
  if (sibling.blobId && sibling.size !== undefined)
    return { kind: 'git-blob', hex: sibling.blobId.toLowerCase() };
  return null;
}

/**
 * A hub's refusal in words. The hub answers 401 for a repository it does not show to this
 * caller (missing, private or gated alike), so the words name each case and what helps.
 */
export function hubStatusWords(status: number, repo: string, url: string, hasToken: boolean): string {
  const where = safeOrigin(url);
  const tokenHint = hasToken
    ? 'the token in HF_TOKEN does not give access to it (a gated model needs its terms accepted on the hub)'
    : 'a private or gated repository needs a token: set HF_TOKEN before starting the app';
  if (status === 401 || status === 403)
    return `${where} would not show ${repo}: check the name; ${tokenHint}`;
  if (status === 404) return `${where} has no ${repo} (or no such file or revision in it)`;
  if (status === 429) return `${where} says too many requests right now: try again in a minute`;
  return `${where} answered HTTP ${status} for ${repo}`;
}
