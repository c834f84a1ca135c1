import { describe, expect, it } from 'vitest';
import { electronInstallerEnv, npmCommand } from '../../../../tools/setup/electron-binary.mjs';

describe("installing Electron's package and binary", () => {
  it('runs the npm that runs us (npm start, the install step) with this Node', () => {
    const cli = '/opt/npm10/node_modules/npm/bin/npm-cli.js';
    expect(npmCommand({ npm_execpath: cli })).toEqual({ command: process.execPath, args: [cli] });
  });

  it("does not mistake another package manager's entry for npm's", () => {
    const found = npmCommand({ npm_execpath: '/opt/pnpm/bin/pnpm.cjs' });
    expect(found.args.join(' ')).not.toContain('pnpm');
  });

  it("hands the user's proxy to Electron's downloader and drops the skip switch the caller overrode", () => {
    expect(
      electronInstallerEnv({
        PATH: '/bin',
        HTTPS_PROXY: 'http://proxy:3128',
        ELECTRON_SKIP_BINARY_DOWNLOAD: '1',
      }),
    ).toEqual({
      PATH: '/bin',
      HTTPS_PROXY: 'http://proxy:3128',
      ELECTRON_GET_USE_PROXY: '1',
      GLOBAL_AGENT_HTTPS_PROXY: 'http://proxy:3128',
    });
    expect(electronInstallerEnv({ PATH: '/bin' })).toEqual({ PATH: '/bin' });
  });
});
