/**
 * `npm run bench -- quality [--model DIR] [--json]`: every variant of one model folder on the
 * same held-out text: bits per byte (exact full-context scoring) and agreement with the
 * folder's highest-precision variant (free-running greedy tokens over N prompts, and top-1
 * on the held-out text). Boundary: bare forwards on this thread (no engine), so quality is
 * the weights' and graph's alone. Results are stored in the data folder for the Runs view.
 */
import path from 'node:path';
import { parseArgs } from 'node:util';
import { openRunner } from '../../src-main/runtime/slot-worker/open-runner';
import { ModelCatalogue } from '../../src-main/runtime/model/catalogue';
import { RevisionCache } from '../../src-main/runtime/model/revisions';
import { DEFAULT_SETTINGS } from '../../src-main/runtime/settings/schema';
import type { CatalogueModel } from '../../src-main/runtime/model/catalogue';
import { storeQualityResults } from '../../src-main/service/quality-file';
import type { QualityResult } from '../../src-main/service/contract/quality-schemas';
import { DEFAULT_DATA_DIR } from '../../src-main/cli/paths';
import { modelDirOf } from '../run-options';
import { greedyPrompts, readHeldOutText, scoredTexts } from './held-out';
import type { HeldOutText } from './held-out';
import { greedyContinuation, scoreText } from './measure';
import { printQuality, qualityJson, referenceOf } from './report';
import type { VariantQuality } from './report';
import { print, printError } from '../../src-main/printable';

const USAGE = `npm run bench -- quality [--model DIR] [--variants a,b] [--prompts 8] [--tokens 32] [--threads N]
  [--data-dir DIR | --no-store] [--json]`;

/** Entry point for `npm run bench -- quality`. */
export async function run(argv: string[]): Promise<number> {
  const { values } = parseArgs({
    args: argv,
    options: {
      model: { type: 'string' },
      variants: { type: 'string' },
      prompts: { type: 'string', default: '8' },
      tokens: { type: 'string', default: '32' },
      threads: { type: 'string', default: '1' },
      'data-dir': { type: 'string' },
      'no-store': { type: 'boolean', default: false },
      json: { type: 'boolean', default: false },
    },
  });
  const count = (name: string, text: string) => {
    const value = Number(text);
    if (!Number.isInteger(value) || value < 1)
      throw new Error(`--${name} "${text}": an integer ≥ 1\n${USAGE}`);
    return value;
  };
  const modelDir = modelDirOf(values.model);
  const models = await variantsOf(modelDir, values.variants?.split(',') ?? null);
  const workload = {
    numPrompts: count('prompts', values.prompts),
    numTokens: count('tokens', values.tokens),
  };
  const numThreads = count('threads', values.threads);
  const text = readHeldOutText();
  const log = (line: string) => values.json || printError(line);
  const measured: VariantQuality[] = [];
  for (const model of models) {
    log(`measuring ${model.modelId} (${model.graph.weightDtype}, ${model.graph.file})`);
    measured.push(await measureVariant(model, text, workload, numThreads));
  }
  const report = qualityJson(modelDir, text, workload, numThreads, measured);
  if (!values['no-store'])
    storeQualityResults(path.resolve(values['data-dir'] ?? DEFAULT_DATA_DIR), toResults(report, measured));
  if (values.json) print(JSON.stringify(report, null, 2));
  else printQuality(report);
  return 0;
}

/** The folder's variants that list clean (all, or the named ones), highest precision first. */
async function variantsOf(modelDir: string, wanted: string[] | null): Promise<CatalogueModel[]> {
  const catalogue = new ModelCatalogue(path.dirname(modelDir), null, new RevisionCache(null));
  const entries = (await catalogue.refresh()).filter((e) => e.name === path.basename(modelDir));
  if (entries.length === 0) throw new Error(`no model folder at ${modelDir} (pass --model DIR)`);
  const picked = entries.filter((e) => !wanted || (e.variant !== null && wanted.includes(e.variant)));
  for (const entry of picked)
    if (entry.status === 'broken') printError(`skipping ${entry.modelId}: ${entry.error}`);
  const models = picked.flatMap((e) => (e.status === 'ok' ? [e.model] : []));
  if (models.length === 0) throw new Error(`${modelDir}: no variant to measure`);
  const reference = referenceOf(models);
  return [reference, ...models.filter((m) => m !== reference)];
}

async function measureVariant(
  model: CatalogueModel,
  text: HeldOutText,
  workload: { numPrompts: number; numTokens: number },
  numThreads: number,
): Promise<VariantQuality> {
  // Threads as a slot runs them by default (quality does not depend on it; its step times do).
  const runner = await openRunner(model, { numThreads, canSpinThreads: DEFAULT_SETTINGS.canSpinThreads });
  try {
    const score = await scoreText(runner, scoredTexts(model.folder, text));
    const greedy = [];
    for (const prompt of greedyPrompts(model.folder, text, workload.numPrompts))
      greedy.push(
        await greedyContinuation(runner, prompt, workload.numTokens, model.folder.tokenizer.vocabSize),
      );
    return { model, score, greedy };
  } finally {
    await runner.release();
  }
}

function toResults(report: ReturnType<typeof qualityJson>, measured: VariantQuality[]): QualityResult[] {
  const measuredAtWallMs = Date.now();
  return report.variants.map((v, i) => {
    const { model } = measured[i]!;
    return {
      modelId: model.modelId,
      name: model.name,
      variant: model.variant,
      modelRevision: model.revisions.modelRevision,
      weightDtype: model.graph.weightDtype,
      referenceVariant: report.reference.variant,
      bitsPerByte: v.bits_per_byte,
      bitsPerByteVsReferencePct: v.bits_per_byte_vs_reference_pct,
      agreement: v.agreement,
      top1Agreement: v.top1_agreement,
      numPrompts: report.workload.prompts,
      numTokensPerPrompt: report.workload.tokens_per_prompt,
      numScoredTokens: v.scored_tokens,
      numTextBytes: report.text.bytes,
      textSha256: report.text.sha256,
      measuredAtWallMs,
    };
  });
}
