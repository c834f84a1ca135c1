import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it, vi } from 'vitest';
import { openFileLog } from '../../../../src-main/telemetry/log/file-log';
import { useTempDirs } from '../../history/temp-dir';

const tempDir = useTempDirs();

describe('the problem log file', () => {
  it('appends one stamped line per problem and keeps the latest for the status view', () => {
    const dir = join(tempDir(), 'logs');
    const log = openFileLog(dir);
    log.warn('slots', 'slot-a stayed loaded');
    log.warn('store', 'pruning failed');
    const lines = readFileSync(log.path, 'utf8').trim().split('\n');
    expect(lines).toHaveLength(2);
    expect(lines[0]).toMatch(/^\d{4}-\d\d-\d\dT[\d:.]+Z \[slots\] slot-a stayed loaded$/);
    expect(log.recent().map((e) => `${e.topic}: ${e.message}`)).toEqual([
      'slots: slot-a stayed loaded',
      'store: pruning failed',
    ]);
  });

  it('rotates past its size cap, keeping the previous file as .1', () => {
    const log = openFileLog(tempDir(), 200);
    for (let i = 0; i < 10; i++) log.warn('test', `problem number ${i} with some words to fill the line`);
    expect(readFileSync(log.path, 'utf8').length).toBeLessThanOrEqual(200);
    expect(existsSync(`${log.path}.1`)).toBe(true);
    expect(readFileSync(log.path, 'utf8')).toContain('problem number 9');
  });

  it('tells stderr, with the reason, when the file cannot be written, and never throws', () => {
    const blocker = join(tempDir(), 'not-a-folder');
    writeFileSync(blocker, 'x');
    const warn = vi.spyOn(console, 'warn').mockImplementation(() => undefined);
    const log = openFileLog(join(blocker, 'logs'));
    expect(() => log.warn('chat', 'answer not stored')).not.toThrow();
    expect(warn.mock.calls.map((c) => String(c[0]))).toEqual([
      expect.stringMatching(/^\[log\] cannot write .*first-frame\.log/),
      '[chat] answer not stored',
    ]);
    expect(log.recent()).toHaveLength(1);
    warn.mockRestore();
  });
});
