import { EventEmitter } from 'node:events';
import type { Session, WebContents } from 'electron';
import { describe, expect, it, vi } from 'vitest';
import {
  hardenSession,
  hardenWebContents,
  type HardenOptions,
} from '../../../../src-main/host/electron/harden';
import { APP_ENTRY_URL, APP_ORIGIN } from '../../../../src-main/host/electron/security-rules';

type WindowOpenHandler = (details: { url: string }) => { action: string };

/** A fake WebContents: an emitter plus the window-open handler slot. */
class FakeContents extends EventEmitter {
  windowOpenHandler: WindowOpenHandler | null = null;
  setWindowOpenHandler(handler: WindowOpenHandler): void {
    this.windowOpenHandler = handler;
  }
  /** Emits a cancellable event; true when a listener prevented it. */
  fire(name: string, fields: Record<string, unknown> = {}): boolean {
    let isPrevented = false;
    this.emit(name, { ...fields, preventDefault: () => (isPrevented = true) });
    return isPrevented;
  }
}

function options() {
  return {
    appOrigins: [APP_ORIGIN],
    openExternal: vi.fn<(url: string) => void>(),
    log: () => {},
  } satisfies HardenOptions;
}

describe('hardenWebContents', () => {
  it('denies every navigation and sends safe web links to the OS browser', () => {
    const contents = new FakeContents();
    const opts = options();
    hardenWebContents(contents as unknown as WebContents, opts);
    expect(contents.fire('will-navigate', { url: 'https://example.com/docs' })).toBe(true);
    expect(opts.openExternal).toHaveBeenCalledWith('https://example.com/docs');
    expect(contents.fire('will-navigate', { url: 'file:///etc/passwd' })).toBe(true);
    expect(contents.fire('will-navigate', { url: APP_ENTRY_URL })).toBe(true);
    expect(opts.openExternal).toHaveBeenCalledTimes(1);
  });

  it('denies window.open, opening only vetted URLs externally', () => {
    const contents = new FakeContents();
    const opts = options();
    hardenWebContents(contents as unknown as WebContents, opts);
    expect(contents.windowOpenHandler!({ url: 'https://example.com/' })).toEqual({ action: 'deny' });
    expect(contents.windowOpenHandler!({ url: 'smb://host/share' })).toEqual({ action: 'deny' });
    expect(opts.openExternal).toHaveBeenCalledTimes(1);
  });

  it('refuses webviews, foreign redirects and foreign subframe navigations', () => {
    const contents = new FakeContents();
    hardenWebContents(contents as unknown as WebContents, options());
    expect(contents.fire('will-attach-webview')).toBe(true);
    expect(contents.fire('will-redirect', { url: 'https://evil.example/' })).toBe(true);
    expect(contents.fire('will-redirect', { url: `${APP_ORIGIN}/index.html` })).toBe(false);
    expect(contents.fire('will-frame-navigate', { url: 'https://evil.example/' })).toBe(true);
  });
});

describe('hardenSession', () => {
  function fakeSession() {
    const handlers: Record<string, (...args: never[]) => unknown> = {};
    const session = {
      setPermissionRequestHandler: (h: never) => (handlers.request = h),
      setPermissionCheckHandler: (h: never) => (handlers.check = h),
      setDevicePermissionHandler: (h: never) => (handlers.device = h),
      webRequest: { onHeadersReceived: (h: never) => (handlers.headers = h) },
    };
    hardenSession(session as unknown as Session, options(), "default-src 'none'");
    return handlers as Record<string, (...args: unknown[]) => unknown>;
  }

  it('denies permission requests and checks by default', () => {
    const handlers = fakeSession();
    const answers: boolean[] = [];
    handlers.request!({}, 'media', (granted: boolean) => answers.push(granted), {
      requestingUrl: APP_ENTRY_URL,
    });
    handlers.request!({}, 'clipboard-sanitized-write', (granted: boolean) => answers.push(granted), {
      requestingUrl: APP_ENTRY_URL,
    });
    handlers.request!({}, 'clipboard-sanitized-write', (granted: boolean) => answers.push(granted), {
      requestingUrl: 'https://x.example/',
    });
    expect(answers).toEqual([false, true, false]);
    expect(handlers.check!(null, 'geolocation', APP_ORIGIN)).toBe(false);
    expect(handlers.device!({})).toBe(false);
  });

  it('stamps the CSP on our responses only', () => {
    const handlers = fakeSession();
    const ours = vi.fn();
    handlers.headers!(
      { url: `${APP_ORIGIN}/index.html`, responseHeaders: { 'Content-Security-Policy': ['*'] } },
      ours,
    );
    expect(ours).toHaveBeenCalledWith({
      responseHeaders: { 'Content-Security-Policy': ["default-src 'none'"] },
    });
    const theirs = vi.fn();
    handlers.headers!({ url: 'devtools://devtools/bundled/x.html', responseHeaders: {} }, theirs);
    expect(theirs).toHaveBeenCalledWith({});
  });
});
