import { describe, expect, it } from 'vitest';
import {
  APP_ENTRY_URL,
  APP_ORIGIN,
  decideNavigation,
  isAppUrl,
  isPermissionAllowed,
  isSafeExternalUrl,
  isTrustedSenderFrame,
  originOf,
} from '../../../../src-main/host/electron/security-rules';

const PACKAGED = [APP_ORIGIN];
const DEV = ['http://localhost:5173'];

describe('originOf', () => {
  it('keeps scheme, host and port, lower-cased, for web and app schemes', () => {
    expect(originOf('app://first-frame/index.html')).toBe('app://first-frame');
    expect(originOf('HTTP://LocalHost:5173/x?y#z')).toBe('http://localhost:5173');
  });

  it('refuses what does not parse, has no host, or carries credentials', () => {
    expect(originOf('not a url')).toBeNull();
    expect(originOf('file:///etc/passwd')).toBeNull();
    expect(originOf('http://user:pw@localhost:5173/')).toBeNull();
  });
});

describe('isAppUrl (trusted-URL rules)', () => {
  it.each([
    [APP_ENTRY_URL, PACKAGED, true],
    ['app://first-frame/assets/index.js', PACKAGED, true],
    ['app://first-frame.evil.com/', PACKAGED, false],
    ['app://other/index.html', PACKAGED, false],
    ['https://first-frame/', PACKAGED, false],
    ['file:///work/main/out/renderer/index.html', PACKAGED, false],
    ['http://localhost:5173/', DEV, true],
    ['http://localhost:5174/', DEV, false],
    ['http://127.0.0.1:5173/', DEV, false],
    ['https://localhost:5173/', DEV, false],
    ['http://localhost:5173@evil.com/', DEV, false],
    ['javascript:alert(1)', PACKAGED, false],
    ['', PACKAGED, false],
  ])('%s with %j → %s', (url, origins, expected) => {
    expect(isAppUrl(url, origins)).toBe(expected);
  });
});

describe('isTrustedSenderFrame', () => {
  it('accepts only our own top-level frame', () => {
    expect(isTrustedSenderFrame({ url: APP_ENTRY_URL, isTopFrame: true }, PACKAGED)).toBe(true);
  });

  it('refuses a subframe even of our origin, a foreign page and a destroyed frame', () => {
    expect(isTrustedSenderFrame({ url: APP_ENTRY_URL, isTopFrame: false }, PACKAGED)).toBe(false);
    expect(isTrustedSenderFrame({ url: 'https://evil.example/', isTopFrame: true }, PACKAGED)).toBe(false);
    expect(isTrustedSenderFrame(null, PACKAGED)).toBe(false);
  });
});

describe('isSafeExternalUrl', () => {
  it.each([
    ['https://onnxruntime.ai/docs/', true],
    ['http://example.com', true],
    ['file:///etc/passwd', false],
    ['javascript:alert(1)', false],
    ['ms-msdt:/id PCWDiagnostic', false],
    ['smb://server/share', false],
    ['https://user:pw@example.com/', false],
    [`https://example.com/${'a'.repeat(3_000)}`, false],
    ['not a url', false],
  ])('%s → %s', (url, expected) => {
    expect(isSafeExternalUrl(url)).toBe(expected);
  });
});

describe('decideNavigation', () => {
  it('never navigates, not even within our origin', () => {
    expect(decideNavigation('app://first-frame/other.html', PACKAGED)).toEqual({ kind: 'deny' });
  });

  it('hands a safe external link to the OS browser, normalised', () => {
    expect(decideNavigation('HTTPS://Example.com/a b', PACKAGED)).toEqual({
      kind: 'open-external',
      url: 'https://example.com/a%20b',
    });
  });

  it('refuses unsafe schemes outright', () => {
    expect(decideNavigation('file:///etc/passwd', PACKAGED)).toEqual({ kind: 'deny' });
    expect(decideNavigation('vscode://open?file=x', PACKAGED)).toEqual({ kind: 'deny' });
  });
});

describe('isPermissionAllowed', () => {
  it('allows clipboard writes for our origin only', () => {
    expect(isPermissionAllowed('clipboard-sanitized-write', APP_ENTRY_URL, PACKAGED)).toBe(true);
    expect(isPermissionAllowed('clipboard-sanitized-write', APP_ORIGIN, PACKAGED)).toBe(true);
    expect(isPermissionAllowed('clipboard-sanitized-write', 'https://evil.example/', PACKAGED)).toBe(false);
  });

  it.each(['media', 'geolocation', 'notifications', 'clipboard-read', 'openExternal', 'hid', 'unknown'])(
    'denies %s even for our origin',
    (permission) => {
      expect(isPermissionAllowed(permission, APP_ENTRY_URL, PACKAGED)).toBe(false);
    },
  );
});
