import { describe, expect, it, vi } from 'vitest';
import { createExternalLinkOpener } from '../../../../src-main/host/electron/external-links';

function opener(answer: () => Promise<boolean>) {
  const opened: string[] = [];
  const logged: string[] = [];
  const confirm = vi.fn(answer);
  const open = createExternalLinkOpener({
    confirm,
    open: async (url) => void opened.push(url),
    log: (line) => logged.push(line),
  });
  return { open, opened, logged, confirm };
}

describe('links out of the app', () => {
  it('opens an http(s) link in the OS browser only after the user says yes', async () => {
    const yes = opener(async () => true);
    expect(await yes.open('https://example.com/docs')).toBe(true);
    expect(yes.confirm).toHaveBeenCalledWith('https://example.com/docs');
    expect(yes.opened).toEqual(['https://example.com/docs']);
    const no = opener(async () => false);
    expect(await no.open('https://example.com/docs')).toBe(false);
    expect(no.opened).toEqual([]);
    expect(no.logged.join()).toMatch(/chose not to open/);
  });

  it.each([
    'file:///etc/passwd',
    'javascript:alert(1)',
    'ms-settings:privacy',
    'smb://host/share',
    'https://user:pw@example.com/',
  ])('never asks about, nor opens, %s', async (url) => {
    const any = opener(async () => true);
    expect(await any.open(url)).toBe(false);
    expect(any.confirm).not.toHaveBeenCalled();
    expect(any.opened).toEqual([]);
  });

  it('refuses further links while one question is open, instead of stacking dialogs', async () => {
    let answer: (yes: boolean) => void = () => undefined;
    const pending = opener(() => new Promise<boolean>((resolve) => (answer = resolve)));
    const first = pending.open('https://example.com/a');
    expect(await pending.open('https://example.com/b')).toBe(false);
    answer(true);
    expect(await first).toBe(true);
    expect(pending.opened).toEqual(['https://example.com/a']);
    expect(pending.confirm).toHaveBeenCalledTimes(1);
  });
});
