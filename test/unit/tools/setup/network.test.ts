import { describe, expect, it } from 'vitest';
import { classifyFetchFailure, lastLine } from '../../../../tools/setup/network.mjs';

// Outputs as the tools print them on a machine without internet (captured here).
const ELECTRON_INSTALLER = `RequestError: getaddrinfo ENOTFOUND github.com
    at ClientRequest.<anonymous> (/repo/node_modules/got/dist/source/core/index.js:970:111)`;
const NODE_GYP = `gyp http GET https://electronjs.org/headers/v40.9.3/node-v40.9.3-headers.tar.gz
gyp WARN install got an error, rolling back install
gyp ERR! configure error
gyp ERR! stack Error: This is most likely not a problem with node-gyp or the package itself and
gyp ERR! stack is related to network connectivity. In most cases you are behind a proxy or have bad
gyp ERR! not ok`;

describe('a failed download in words', () => {
  it('names the host that could not be reached', () => {
    expect(classifyFetchFailure(ELECTRON_INSTALLER, false)).toEqual({
      kind: 'offline',
      detail: 'github.com could not be reached',
    });
    expect(classifyFetchFailure(NODE_GYP, false)).toEqual({
      kind: 'offline',
      detail: 'electronjs.org could not be reached',
    });
  });

  it('tells a timeout, a missing prebuilt (404) and anything else apart', () => {
    expect(classifyFetchFailure('', true).kind).toBe('timeout');
    expect(
      classifyFetchFailure('prebuild-install warn install Request failed: 404 Not Found', false).kind,
    ).toBe('unavailable');
    expect(classifyFetchFailure('error: disk full\n', false)).toEqual({
      kind: 'failed',
      detail: 'error: disk full',
    });
  });

  it("keeps a tool's last line short enough for one line", () => {
    expect(lastLine(`first\n${'x'.repeat(300)}\n\n`)).toHaveLength(158);
    expect(lastLine('')).toBe('no output');
  });
});
