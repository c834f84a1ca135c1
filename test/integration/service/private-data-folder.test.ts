import { chmodSync, mkdirSync, mkdtempSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { createTestCore } from '../../support/core';
import { sendTurn } from '../../support/chat-turn';
import { runAs, secondAccount } from '../../support/second-account';

/** Every path under `dir` with its permission bits, as `path 0700`. */
function modesUnder(dir: string): string[] {
  return readdirSync(dir, { recursive: true, encoding: 'utf8' }).map(
    (name) => `${name} 0${(statSync(join(dir, name)).mode & 0o777).toString(8)}`,
  );
}

describe('the data folder', () => {
  // A parent every account may enter (as a home folder often is), so only the data folder's
  // own modes keep others out.
  const parent = mkdtempSync(join(tmpdir(), 'ff-private-'));
  chmodSync(parent, 0o755);
  afterAll(() => rmSync(parent, { recursive: true, force: true }));
  const dataDir = join(parent, 'data');

  it("is 0700 and every file the app writes there 0600, an older version's open files included", async () => {
    // What an older version left: the folder 0755, the history and the log 0644.
    mkdirSync(join(dataDir, 'logs'), { recursive: true, mode: 0o755 });
    chmodSync(dataDir, 0o755);
    writeFileSync(join(dataDir, 'history.sqlite'), '', { mode: 0o644 });
    writeFileSync(join(dataDir, 'logs', 'first-frame.log'), 'an older line\n', { mode: 0o644 });
    const core = await createTestCore(dataDir);
    const created = await core.service.call('chat.createConversation', { title: 'private' });
    if (!created.ok) throw new Error(created.error.message);
    await sendTurn(core, created.value.conversationId, 'Only mine to read.');
    const modes = modesUnder(dataDir);
    await core.close();

    expect(statSync(dataDir).mode & 0o777).toBe(0o700);
    expect(modes).toEqual(
      expect.arrayContaining([
        'history.sqlite 0600',
        'history.sqlite-wal 0600',
        'logs 0700',
        'context-pages 0700',
      ]),
    );
    expect(modes).toContain('logs/first-frame.log 0600');
    expect(modes.filter((line) => !/ 0[67]00$/.test(line))).toEqual([]);
  });

  const account = secondAccount();
  it.skipIf(account === null)(
    'cannot be read by another local account (needs root to make the account)',
    () => {
      const ran = runAs(
        account!,
        `const fs = require('node:fs');
         for (const read of [() => fs.readdirSync(process.argv[1]), () => fs.readFileSync(process.argv[2])]) {
           try { read(); console.log('read'); } catch (error) { console.log(error.code); }
         }`,
        [dataDir, join(dataDir, 'history.sqlite')],
      );
      expect(ran.output.trim().split('\n')).toEqual(['EACCES', 'EACCES']);
    },
  );
});
