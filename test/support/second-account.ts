import { execFileSync, spawnSync } from 'node:child_process';

/** Another local account on this machine, as tests that keep other users out need one. */
export interface SecondAccount {
  uid: number;
  gid: number;
}

const NAME = 'ff-second-user';

/**
 * A second local account (made once with `useradd --system`, no home), or null when this
 * process cannot make one (it is not root: CI runs as root, a developer's machine may not).
 */
export function secondAccount(): SecondAccount | null {
  if (process.getuid?.() !== 0) return null;
  const idOf = (): SecondAccount | null => {
    try {
      const uid = Number(execFileSync('id', ['-u', NAME], { encoding: 'utf8', stdio: 'pipe' }));
      const gid = Number(execFileSync('id', ['-g', NAME], { encoding: 'utf8', stdio: 'pipe' }));
      return { uid, gid };
    } catch {
      return null; // no such account yet
    }
  };
  const known = idOf();
  if (known) return known;
  // Two test files may race to make it: whichever loses finds the winner's account.
  spawnSync('useradd', ['--system', '--no-create-home', '--shell', '/usr/sbin/nologin', NAME]);
  return idOf();
}

/**
 * Runs `script` (JavaScript for `node -e`, reading `process.argv[1…]`) as `account`; its exit
 * status and what it printed.
 */
export function runAs(
  account: SecondAccount,
  script: string,
  args: string[] = [],
): { status: number | null; output: string } {
  const ran = spawnSync(process.execPath, ['-e', script, ...args], {
    uid: account.uid,
    gid: account.gid,
    cwd: '/',
    encoding: 'utf8',
    env: { PATH: process.env.PATH ?? '' },
  });
  return { status: ran.status, output: `${ran.stdout}${ran.stderr}${ran.error?.message ?? ''}` };
}
