import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const REPO_DIR = fileURLToPath(new URL('../../..', import.meta.url));
// semver is npm's own range logic; it is installed (hoisted) with the toolchain, and only this
// test reads it, so it is not a dependency of the app.
const semver = createRequire(import.meta.url)('semver') as {
  subset(sub: string, dom: string): boolean;
  satisfies(version: string, range: string): boolean;
};

interface LockEntry {
  engines?: { node?: string };
  os?: string[];
  cpu?: string[];
}

/** Whether npm installs this entry on this machine (no os/cpu restriction that excludes it). */
function isInstalledHere(entry: LockEntry): boolean {
  return (
    (!entry.os || entry.os.includes(process.platform)) && (!entry.cpu || entry.cpu.includes(process.arch))
  );
}

describe('the Node versions package.json allows', () => {
  const pkg = JSON.parse(readFileSync(`${REPO_DIR}/package.json`, 'utf8')) as { engines: { node: string } };
  const lock = JSON.parse(readFileSync(`${REPO_DIR}/package-lock.json`, 'utf8')) as {
    packages: Record<string, LockEntry>;
  };

  it('are versions every locked package accepts, so a fresh npm ci prints no EBADENGINE warning', () => {
    const ours = pkg.engines.node;
    const refusing = Object.entries(lock.packages)
      .filter(([name, entry]) => name !== '' && entry.engines?.node && isInstalledHere(entry))
      .filter(([, entry]) => !semver.subset(ours, entry.engines!.node!))
      .map(([name, entry]) => `${name} wants node ${entry.engines!.node}`);
    expect(refusing).toEqual([]);
    expect(lock.packages['']?.engines?.node).toBe(ours);
  });

  it('include the Node running the tests', () => {
    expect(semver.satisfies(process.versions.node, pkg.engines.node)).toBe(true);
  });
});
