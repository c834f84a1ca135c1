import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { appFileHeaders, contentTypeFor, resolveAppFile } from '../../../../src-main/host/electron/app-files';
import {
  buildContentSecurityPolicy,
  withContentSecurityPolicy,
} from '../../../../src-main/host/electron/csp';
import { chooseRendererSource } from '../../../../src-main/host/electron/renderer-source';
import { APP_ENTRY_URL, APP_ORIGIN } from '../../../../src-main/host/electron/security-rules';
import { parseCsp } from './parse-csp';

describe('buildContentSecurityPolicy', () => {
  it("starts from default-src 'none' and allows only our own scripts and styles when packaged", () => {
    const policy = buildContentSecurityPolicy(null);
    expect(policy.startsWith("default-src 'none'")).toBe(true);
    const csp = parseCsp(policy);
    expect(csp.get('script-src')).toEqual(["'self'"]);
    expect(csp.get('style-src')).toEqual(["'self'"]);
    expect(csp.get('object-src')).toEqual(["'none'"]);
    expect(csp.get('frame-ancestors')).toEqual(["'none'"]);
    expect(csp.get('base-uri')).toEqual(["'none'"]);
    expect(policy).not.toMatch(/unsafe-eval|\*/);
  });

  it('opens only what the dev server needs in development', () => {
    const csp = parseCsp(buildContentSecurityPolicy('http://localhost:5173'));
    expect(csp.get('connect-src')).toEqual(["'self'", 'ws://localhost:5173']);
    expect(csp.get('script-src')).toContain("'unsafe-inline'");
    expect(csp.get('script-src')).not.toContain("'unsafe-eval'");
  });
});

describe('withContentSecurityPolicy', () => {
  it('replaces a CSP the server sent, whatever its case, and keeps other headers', () => {
    const headers = withContentSecurityPolicy(
      { 'content-security-policy': ['*'], 'x-other': ['1'] },
      "default-src 'none'",
    );
    expect(headers).toEqual({ 'x-other': ['1'], 'Content-Security-Policy': ["default-src 'none'"] });
  });
});

describe('chooseRendererSource', () => {
  const bundle = { kind: 'bundle', url: APP_ENTRY_URL, origin: APP_ORIGIN };

  it('loads the bundle when packaged, whatever the environment says', () => {
    expect(chooseRendererSource(true, 'http://localhost:5173/')).toEqual(bundle);
  });

  it('uses a loopback http dev server in development', () => {
    expect(chooseRendererSource(false, 'http://localhost:5173')).toEqual({
      kind: 'dev-server',
      url: 'http://localhost:5173/',
      origin: 'http://localhost:5173',
    });
    expect(chooseRendererSource(false, 'http://[::1]:5173/').kind).toBe('dev-server');
  });

  it.each(['https://example.com/', 'http://192.168.1.9:5173/', 'file:///tmp/x.html', 'nonsense', ''])(
    'refuses %j as a dev server',
    (url) => {
      expect(chooseRendererSource(false, url)).toEqual(bundle);
    },
  );
});

describe('resolveAppFile', () => {
  const root = join('/opt', 'ff', 'out', 'renderer');

  it('maps our URLs into the renderer folder; / is index.html', () => {
    expect(resolveAppFile(root, 'app://first-frame/')).toBe(join(root, 'index.html'));
    expect(resolveAppFile(root, 'app://first-frame/assets/index-1.js?v=2')).toBe(
      join(root, 'assets', 'index-1.js'),
    );
  });

  it.each(['app://first-frame/../../etc/passwd', 'app://first-frame/%2e%2e/%2e%2e/etc/passwd'])(
    'keeps %s inside the folder (the URL parser drops the dot segments)',
    (url) => {
      expect(resolveAppFile(root, url)).toBe(join(root, 'etc', 'passwd'));
    },
  );

  it.each([
    'app://first-frame/assets/..%2f..%2f..%2fetc%2fpasswd',
    'app://first-frame/a%5c..%5c..%5csecret',
    'app://first-frame/index.html%00.js',
    'app://first-frame/%E0%A4%A',
    'app://other-host/index.html',
    'https://first-frame/index.html',
  ])('refuses %s', (url) => {
    expect(resolveAppFile(root, url)).toBeNull();
  });
});

describe('app file headers', () => {
  it('serves module scripts as JavaScript, with the CSP and no sniffing', () => {
    expect(contentTypeFor('/x/index-abc.js')).toMatch(/^text\/javascript/);
    expect(contentTypeFor('/x/README')).toBe('application/octet-stream');
    const headers = appFileHeaders('/x/index.html', "default-src 'none'");
    expect(headers['Content-Type']).toMatch(/^text\/html/);
    expect(headers['Content-Security-Policy']).toBe("default-src 'none'");
    expect(headers['X-Content-Type-Options']).toBe('nosniff');
  });
});
