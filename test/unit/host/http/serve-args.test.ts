import { describe, expect, it } from 'vitest';
import { parseServeArgs } from '../../../../src-main/host/http/serve-args';

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

  it('reads runtime settings flags into a settings patch, and nothing else from them', () => {
    const args = parseServeArgs([
      '--seats',
      '8',
      '--prefill-chunk=off',
      '--kv-budget-mb',
      '64',
      '--port',
      '0',
    ]);
    expect(args.settings).toEqual({ maxSeats: 8, prefillChunkTokens: null, kvBudgetBytes: 64 * 1024 * 1024 });
    expect(args.port).toBe(0);
  });

  it('refuses a settings flag out of range with the flag and the bound', () => {
    expect(() => parseServeArgs(['--seats', '0'])).toThrow(/--seats 0: .*1/);
    expect(() => parseServeArgs(['--seats', 'four'])).toThrow(/--seats four: "four" is not a whole number/);
    expect(() => parseServeArgs(['--provider', 'tpu'])).toThrow(/--provider tpu/);
  });

  it('refuses bad ports, unknown flags and missing values', () => {
    expect(() => parseServeArgs(['--port', '70000'])).toThrow(/0–65535/);
    expect(() => parseServeArgs(['--prot', '1'])).toThrow(/unknown option/);
    expect(() => parseServeArgs(['--host'])).toThrow(/needs a value/);
  });

  it('reads --discover-models on|off, leaves it to the kept choice when absent, and refuses other words', () => {
    expect(parseServeArgs([]).discoverModels).toBeNull();
    expect(parseServeArgs(['--discover-models', 'on']).discoverModels).toBe(true);
    expect(parseServeArgs(['--discover-models=off']).discoverModels).toBe(false);
    expect(() => parseServeArgs(['--discover-models', 'yes'])).toThrow(
      /--discover-models takes on or off, got "yes"/,
    );
  });
});
