import { APP_ENTRY_URL, APP_ORIGIN, originOf } from './security-rules';

// Where the window's page comes from: the packaged bundle over app://, or in development the
// electron-vite dev server, and nothing else. Pure, so the rule is tested without Electron.

/** The page the window loads and the one origin it (and only it) may call IPC from. */
export interface RendererSource {
  kind: 'bundle' | 'dev-server';
  url: string;
  origin: string;
}

/** Hosts a dev server may run on: this machine only. */
const LOOPBACK_HOSTS: ReadonlySet<string> = new Set(['localhost', '127.0.0.1', '[::1]']);

/**
 * The dev server URL (electron-vite's ELECTRON_RENDERER_URL) is honoured only when the app is
 * not packaged and it is plain http on a loopback host; otherwise the bundle loads.
 */
export function chooseRendererSource(isPackaged: boolean, devServerUrl: string | undefined): RendererSource {
  const bundle: RendererSource = { kind: 'bundle', url: APP_ENTRY_URL, origin: APP_ORIGIN };
  if (isPackaged || devServerUrl === undefined || devServerUrl === '') return bundle;
  const origin = originOf(devServerUrl);
  if (origin === null) return bundle;
  const url = new URL(devServerUrl);
  if (url.protocol !== 'http:' || !LOOPBACK_HOSTS.has(url.hostname)) return bundle;
  return { kind: 'dev-server', url: url.href, origin };
}
