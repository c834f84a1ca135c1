import { fileURLToPath } from 'node:url';
import { decideStart } from '../../tools/setup/start-decision.mjs';
import type { StartFacts } from '../../tools/setup/start-decision.mjs';
import { gatherStartFacts } from '../../tools/setup/start-facts.mjs';

/** The repository under test. */
export const REPO_DIR = fileURLToPath(new URL('../..', import.meta.url));

/**
 * The facts `npm start` would act on, and why the window cannot open here (null when it can):
 * the same decision, without downloading anything. Printed, so a skipped run says why.
 */
export function electronSkip(): { facts: StartFacts; reason: string | null } {
  const facts = gatherStartFacts({
    repoDir: REPO_DIR,
    env: process.env,
    isBrowserRequested: false,
    canDownload: false,
  });
  const decision = decideStart(facts);
  const reason =
    decision.kind === 'browser'
      ? `${decision.reason}${decision.remedy ? ` (${decision.remedy})` : ''}`
      : null;
  return { facts, reason };
}
