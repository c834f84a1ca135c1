import { extname, join, normalize, sep } from 'node:path';
import { APP_HOST, APP_SCHEME } from './security-rules';

// Which file an app:// request may read, and the headers it is served with. Pure: the protocol
// handler in app-protocol.ts does the reading.

const CONTENT_TYPES: Readonly<Record<string, string>> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.mjs': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.json': 'application/json; charset=utf-8',
  '.map': 'application/json; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.jpg': 'image/jpeg',
  '.jpeg': 'image/jpeg',
  '.ico': 'image/x-icon',
  '.woff': 'font/woff',
  '.woff2': 'font/woff2',
  '.wasm': 'application/wasm',
  '.txt': 'text/plain; charset=utf-8',
};

/**
 * The file under `rootDir` an `app://first-frame/...` URL names, or null when the URL is another
 * origin, malformed, or escapes the folder (`..`, encoded separators, NUL). `/` is index.html.
 */
export function resolveAppFile(rootDir: string, rawUrl: string): string | null {
  let url: URL;
  let pathname: string;
  try {
    url = new URL(rawUrl);
    pathname = decodeURIComponent(url.pathname);
  } catch {
    return null;
  }
  if (url.protocol !== `${APP_SCHEME}:` || url.host !== APP_HOST) return null;
  if (pathname.includes('\0') || pathname.includes('\\')) return null;
  const relative = pathname.endsWith('/') ? `${pathname}index.html` : pathname;
  const root = normalize(rootDir);
  const file = normalize(join(root, relative));
  return file.startsWith(root.endsWith(sep) ? root : root + sep) ? file : null;
}

/** The Content-Type for a served file, by extension (module scripts need a JavaScript type). */
export function contentTypeFor(filePath: string): string {
  return CONTENT_TYPES[extname(filePath).toLowerCase()] ?? 'application/octet-stream';
}

/** Headers for one served file: its type, the CSP, no sniffing, no referrer. */
export function appFileHeaders(filePath: string, contentSecurityPolicy: string): Record<string, string> {
  return {
    'Content-Type': contentTypeFor(filePath),
    'Content-Security-Policy': contentSecurityPolicy,
    'X-Content-Type-Options': 'nosniff',
    'Referrer-Policy': 'no-referrer',
    'Cache-Control': 'no-cache',
  };
}
