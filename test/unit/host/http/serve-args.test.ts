import { describe, expect, it } from 'vitest';
import { parseServeArgs } from '../../../../src-main/host/http';

describe('serve arguments', () => {
  it('binds 127.0.0.1 by default', () => {
    expect(parseServeArgs([])).toMatchObject({ host: '127.0.0.1', port: 5180, dataDir: null });
  });

  it('reads --port, --host, --data-dir and --allow-host, with or without =', () => {
    const args = parseServeArgs([
      '--port=0',
      '--host',
      '0.0.0.0',
      '--data-dir',
      '/tmp/x',
      '--allow-host',
      'a.local',
    ]);
    expect(args).toMatchObject({ port: 0, host: '0.0.0.0', dataDir: '/tmp/x', extraHostNames: ['a.local'] });
  });

  it('refuses bad ports, unknown flags and missing values', () => {
    expect(() => parseServeArgs(['--port', '70000'])).toThrow(/0–65535/);
    expect(() => parseServeArgs(['--prot', '1'])).toThrow(/unknown option/);
    expect(() => parseServeArgs(['--host'])).toThrow(/needs a value/);
  });
});
