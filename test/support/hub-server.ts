/**
 * A model hub on loopback laid out as huggingface.co serves it: `GET /api/models/{repo}
 * [/revision/{rev}]?blobs=true` lists files with sizes and LFS sha256s; `GET /{repo}/resolve/
 * {rev}/{path}` redirects to a CDN path (with X-Repo-Commit, X-Linked-Size, X-Linked-Etag) that
 * answers Range requests. A test may cut a file's next answer after some bytes, or stall it.
 */
import { createHash } from 'node:crypto';
import { createServer } from 'node:http';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Socket } from 'node:net';

/**
 * One file of a fixture repository; `listedSha256` overrides what the listing says (a wrong
 * checksum); `isInGit`: a small file kept in git itself, listed with its blob id and no LFS.
 */
export interface HubFixtureFile {
  path: string;
  bytes: Buffer;
  listedSha256?: string;
  isInGit?: boolean;
  /** The size the listing claims instead of the real one (a file larger than the disk). */
  listedNumBytes?: number;
}

/** A running fixture hub. */
export interface HubServer {
  url: string;
  /** Every file request that reached the CDN path: the file and its Range header. */
  fileRequests: Array<{ path: string; range: string | null }>;
  /** The next answer for `path` closes the connection after `numBytes` body bytes. */
  cutNext(path: string, numBytes: number): void;
  /** Answers for `path` send `numBytes` and then nothing more (until close). */
  stall(path: string, numBytes: number): void;
  /** Later answers for `path` send the whole file again. */
  unstall(path: string): void;
  close(): Promise<void>;
}

/** The commit every fixture repository is at. */
export const FIXTURE_COMMIT = '0123456789abcdef0123456789abcdef01234567';

/**
 * Starts a hub holding `repos` (repository id → files); `privateRepos` answer 401 as the hub
 * does; `gatedRepos` are listed with `gated: "manual"`.
 */
export async function startHubServer(
  repos: Record<string, HubFixtureFile[]>,
  privateRepos: readonly string[] = [],
  gatedRepos: readonly string[] = [],
): Promise<HubServer> {
  const fileRequests: HubServer['fileRequests'] = [];
  const cuts = new Map<string, number>();
  const stalls = new Map<string, number>();
  const sockets = new Set<Socket>();
  const sha = (f: HubFixtureFile) => createHash('sha256').update(f.bytes).digest('hex');
  const server = createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://hub');
    const api = /^\/api\/models\/([^/]+\/[^/]+)(?:\/revision\/([^/]+))?$/.exec(url.pathname);
    if (api) return listing(res, api[1]!);
    const resolve = /^\/([^/]+\/[^/]+)\/resolve\/([^/]+)\/(.+)$/.exec(url.pathname);
    if (resolve) return redirect(res, resolve[1]!, decodeURIComponent(resolve[3]!));
    const cdn = /^\/cdn\/([^/]+\/[^/]+)\/(.+)$/.exec(url.pathname);
    if (cdn) return serveFile(req, res, cdn[1]!, decodeURIComponent(cdn[2]!));
    res.writeHead(404).end('not found');
  });
  const listing = (res: ServerResponse, repo: string) => {
    if (privateRepos.includes(repo)) return void res.writeHead(401).end('{"error":"Repository not found"}');
    const files = repos[repo];
    if (!files) return void res.writeHead(404).end('{"error":"Repository not found"}');
    const siblings = [
      ...files.map((f) =>
        f.isInGit
          ? { rfilename: f.path, size: f.bytes.length, blobId: gitBlobId(f.bytes) }
          : {
              rfilename: f.path,
              size: f.listedNumBytes ?? f.bytes.length,
              blobId: 'b'.repeat(40),
              lfs: {
                sha256: f.listedSha256 ?? sha(f),
                size: f.listedNumBytes ?? f.bytes.length,
                pointerSize: 134,
              },
            },
      ),
      { rfilename: 'README.md', size: 12, blobId: 'c'.repeat(40) },
    ];
    res.writeHead(200, { 'content-type': 'application/json' });
    const gated = gatedRepos.includes(repo) ? 'manual' : false;
    res.end(JSON.stringify({ id: repo, sha: FIXTURE_COMMIT, private: false, gated, siblings }));
  };
  const redirect = (res: ServerResponse, repo: string, path: string) => {
    const file = repos[repo]?.find((f) => f.path === path);
    if (!file) return void res.writeHead(404).end('Entry not found');
    res.writeHead(302, {
      location: `/cdn/${repo}/${encodeURIComponent(path)}`,
      'x-repo-commit': FIXTURE_COMMIT,
      'x-linked-size': String(file.bytes.length),
      'x-linked-etag': `"${sha(file)}"`,
    });
    res.end();
  };
  const serveFile = (req: IncomingMessage, res: ServerResponse, repo: string, path: string) => {
    const file = repos[repo]?.find((f) => f.path === path);
    if (!file) return void res.writeHead(404).end();
    const range = req.headers.range ?? null;
    fileRequests.push({ path, range });
    const from = Number(/^bytes=(\d+)-$/.exec(range ?? '')?.[1] ?? 0);
    if (from >= file.bytes.length && range) return void res.writeHead(416).end();
    const body = file.bytes.subarray(from);
    res.writeHead(range ? 206 : 200, {
      'content-length': String(body.length),
      'accept-ranges': 'bytes',
      ...(range ? { 'content-range': `bytes ${from}-${file.bytes.length - 1}/${file.bytes.length}` } : {}),
    });
    const cut = cuts.get(path);
    const stall = stalls.get(path);
    if (cut !== undefined) {
      cuts.delete(path);
      res.write(body.subarray(0, cut), () => res.socket?.destroy());
    } else if (stall !== undefined) res.write(body.subarray(0, stall));
    else res.end(body);
  };
  server.on('connection', (socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : 0;
  return {
    url: `http://127.0.0.1:${port}`,
    fileRequests,
    cutNext: (path, numBytes) => cuts.set(path, numBytes),
    stall: (path, numBytes) => stalls.set(path, numBytes),
    unstall: (path) => stalls.delete(path),
    close: async () => {
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

/** Git's id of a blob: sha1 over `blob <size>\0` and the bytes. */
function gitBlobId(bytes: Buffer): string {
  return createHash('sha1').update(`blob ${bytes.length}\0`).update(bytes).digest('hex');
}
