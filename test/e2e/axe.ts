import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import type { Page } from 'playwright-core';

/** One axe-core finding: rule, impact and the elements it names. */
export interface AxeFinding {
  id: string;
  impact: string | null;
  help: string;
  targets: string[];
}

const AXE_SOURCE = readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');

/**
 * Runs axe-core (WCAG 2.x A/AA rules) over the page as it is now and returns the serious and
 * critical findings. The source is evaluated through DevTools, which the page's CSP does not
 * govern, so the app's own policy stays strict.
 */
export async function seriousAxeFindings(page: Page): Promise<AxeFinding[]> {
  const hasAxe = await page.evaluate('typeof window.axe === "object"');
  if (!hasAxe) await page.evaluate(AXE_SOURCE);
  const findings = (await page.evaluate(`window.axe
    .run(document, { runOnly: { type: 'tag', values: ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa'] } })
    .then((r) => r.violations.map((v) => ({
      id: v.id,
      impact: v.impact ?? null,
      help: v.help,
      targets: v.nodes.slice(0, 5).map((n) => n.target.join(' ')),
    })))`)) as AxeFinding[];
  return findings.filter((f) => f.impact === 'serious' || f.impact === 'critical');
}
