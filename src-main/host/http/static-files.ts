import { createReadStream } from 'node:fs';
import { stat } from 'node:fs/promises';
import path from 'node:path';
import { sendText } from './respond';
import type { RouteModule } from './route-module';

const CONTENT_TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.mjs': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.json': 'application/json; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.ico': 'image/x-icon',
  '.woff2': 'font/woff2',
  '.map': 'application/json; charset=utf-8',
};

/**
 * Serves the built renderer from `rootDir`: GET/HEAD only, no path may leave the folder,
 * `/` and extension-less paths get index.html (never cached), hashed assets are immutable.
 */
export function createStaticFiles(rootDir: string): RouteModule {
  const root = path.resolve(rootDir);
  return {
    prefix: '/',
    async handle(req, res, url) {
      if (req.method !== 'GET' && req.method !== 'HEAD') return sendText(res, 405, 'Method not allowed');
      const file = await resolveFile(root, url.pathname);
      if (!file) return sendText(res, 404, `Not found: ${url.pathname}`);
      const isAsset = file.startsWith(path.join(root, 'assets') + path.sep);
      res.writeHead(200, {
        'Content-Type': CONTENT_TYPES[path.extname(file).toLowerCase()] ?? 'application/octet-stream',
        'Content-Length': (await stat(file)).size,
        'Cache-Control': isAsset ? 'public, max-age=31536000, immutable' : 'no-cache',
      });
      if (req.method === 'HEAD') return void res.end();
      createReadStream(file).pipe(res);
    },
  };
}

/** The file a path names inside `root`, index.html for app routes, or null. */
async function resolveFile(root: string, pathname: string): Promise<string | null> {
  let decoded: string;
  try {
    decoded = decodeURIComponent(pathname);
  } catch {
    return null;
  }
  if (decoded.includes('\0')) return null;
  const candidate = path.resolve(root, '.' + path.posix.normalize(decoded));
  if (candidate !== root && !candidate.startsWith(root + path.sep)) return null;
  if (await isFile(candidate)) return candidate;
  if (path.extname(decoded) !== '') return null;
  const index = path.join(root, 'index.html');
  return (await isFile(index)) ? index : null;
}

async function isFile(file: string): Promise<boolean> {
  try {
    return (await stat(file)).isFile();
  } catch {
    return false;
  }
}
