import type { LlamaSection } from './llama-report';
import { mediansOf, oursThreadsText, whyOf } from './llama-report';
import type { PeersTarget } from './targets';
import type { Precision } from './variants';

/** The engine's own time over its floor (bare session.run on the same graph), at most this. */
const ENGINE_OVER_FLOOR_LIMIT = 1.05;
/** The long prompt the length targets are judged at, and llama.cpp's decode ratio allowed there. */
const LONG_PROMPT_TOKENS = 2000;
const LONG_ITL_LIMITS: Partial<Record<Precision, number>> = { q4: 1.0, q8: 0.9 };
const SHORT_PROMPT_TOKENS = 128;
const GROWTH_LIMIT = 1.0;

const PRECISION_ORDER = ['q4', 'q8', 'f16'] as const;

const ratio = (a: number | null | undefined, b: number | null | undefined): number | null =>
  a == null || b == null || !(b > 0) ? null : a / b;

const target = (name: string, measured: number | null, limit: number, how: string): PeersTarget => ({
  name,
  measured,
  target: `≤ ${limit.toFixed(2)}`,
  isMet: measured === null ? null : measured <= limit,
  how,
});

const notRun = (name: string, limit: number, why: string): PeersTarget => ({
  ...target(name, null, limit, ''),
  how: `not run: ${why}`,
});

/**
 * The engine's own targets from one run's medians: First Frame's ITL over its floor's at each
 * precision × 1 thread and every core, decode at a 2,000-token prompt beside llama.cpp, and how
 * much each engine's ITL grows from a 128- to a 2,000-token prompt. Null where a section or
 * precision did not run (the `how` says which flag would run it).
 */
export function engineTargets(sections: readonly LlamaSection[], allCores: number): PeersTarget[] {
  const fewest = Math.min(...sections.map((s) => s.numThreads));
  const at = (numThreads: number, numPromptTokens: number) =>
    sections.find((s) => s.numThreads === numThreads && s.numPromptTokens === numPromptTokens) ?? null;
  const shortest = Math.min(...sections.map((s) => s.numPromptTokens));
  const floorTargets = [1, allCores].flatMap((numThreads, i) =>
    i === 1 && allCores === 1
      ? []
      : PRECISION_ORDER.map((precision) => overFloor(at(numThreads, shortest), numThreads, precision)),
  );
  const long = at(fewest, LONG_PROMPT_TOKENS);
  const longTargets = (['q4', 'q8'] as const).map((precision) => longItl(long, precision));
  return [...floorTargets, ...longTargets, growth(at(fewest, SHORT_PROMPT_TOKENS), long)];
}

function overFloor(section: LlamaSection | null, numThreads: number, precision: Precision): PeersTarget {
  const name = `engine_over_floor_itl_${precision}_${numThreads === 1 ? '1_thread' : 'all_cores'}`;
  if (!section) return notRun(name, ENGINE_OVER_FLOOR_LIMIT, `--threads did not include ${numThreads}`);
  const m = mediansOf(section, precision);
  return target(
    name,
    ratio(m?.ours.itl_ms.p50, m?.floor.itl_ms.p50),
    ENGINE_OVER_FLOOR_LIMIT,
    `p50 First Frame inter-token gap ÷ p50 bare session.run decode step of the same graph (same ids, same steps), ${precision}, ~${section.numPromptTokens}-token prompt, ${oursThreadsText(section)}; ${whyOf(section, precision)}`,
  );
}

function longItl(section: LlamaSection | null, precision: 'q4' | 'q8'): PeersTarget {
  const name = `decode_itl_ours_over_llamacpp_${precision}_2k`;
  const limit = LONG_ITL_LIMITS[precision]!;
  if (!section) return notRun(name, limit, `--prompt-tokens did not include ${LONG_PROMPT_TOKENS}`);
  const m = mediansOf(section, precision);
  return target(
    name,
    ratio(m?.ours.itl_ms.p50, m?.llama.itl_ms.p50),
    limit,
    `p50 First Frame inter-token gap ÷ p50 llama.cpp decode step after a ${LONG_PROMPT_TOKENS}-token prompt, ${precision}, ${section.numThreads} thread(s) each; ${whyOf(section, precision)}`,
  );
}

function growth(short: LlamaSection | null, long: LlamaSection | null): PeersTarget {
  const name = `itl_growth_${SHORT_PROMPT_TOKENS}_to_2k_ours_over_llamacpp`;
  if (!short || !long)
    return notRun(
      name,
      GROWTH_LIMIT,
      `--prompt-tokens did not include both ${SHORT_PROMPT_TOKENS} and ${LONG_PROMPT_TOKENS}`,
    );
  const s = mediansOf(short, 'q4');
  const l = mediansOf(long, 'q4');
  const grew = (a: number | null | undefined, b: number | null | undefined) =>
    a == null || b == null ? null : b - a;
  return target(
    name,
    ratio(grew(s?.ours.itl_ms.p50, l?.ours.itl_ms.p50), grew(s?.llama.itl_ms.p50, l?.llama.itl_ms.p50)),
    GROWTH_LIMIT,
    `q4, ${short.numThreads} thread(s): (p50 First Frame ITL at a ${LONG_PROMPT_TOKENS}-token prompt − at ${SHORT_PROMPT_TOKENS}) ÷ the same difference of llama.cpp's p50 decode step`,
  );
}
