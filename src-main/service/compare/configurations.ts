import { SETTING_KEYS, SETTINGS } from '../../runtime/settings/declaration';
import type { SettingKey } from '../../runtime/settings/declaration';
import type { RunConfig, RunRecord } from '../../history/queries/runs';
import type { QualityResult } from '../contract/quality-schemas';
import { qualityOfRevision } from '../quality-file';

/** A run's settings as text (each as its flag writes it); `?` where the run did not record one. */
export type SettingTexts = Record<SettingKey, string>;

/** A compared run's letter (A, B, …, in the order the runs were picked): never shared by two runs. */
export function runLetterOf(index: number): string {
  return String.fromCharCode(65 + index);
}

/** One configuration: the settings and model revisions a set of runs shared, labelled by its runs' letters ("A", "A, B"). */
export interface Configuration {
  label: string;
  runIds: string[];
  settings: SettingTexts;
  modelRevisions: Record<string, string>;
  /** `engine at URL, model M` for runs against a remote engine; null for runs served here. */
  servedBy: string | null;
  /** The quality bench's result for the configuration's one model revision, when measured. */
  quality: QualityResult | null;
}

/** The value a run did not record (older runs kept only seats and page size). */
export const UNKNOWN = '?';
/** A remote engine's settings: its server's own, not recorded here. */
export const ON_SERVER = 'the server’s';

/** The settings a run recorded, as text; older runs' `numSeats` and `pageSize` fill in. */
export function settingTextsOf(config: RunConfig): SettingTexts {
  if (config.endpoint) return Object.fromEntries(SETTING_KEYS.map((k) => [k, ON_SERVER])) as SettingTexts;
  const stored: Record<string, unknown> = {
    ...(config.numSeats !== undefined ? { maxSeats: config.numSeats } : {}),
    ...(config.pageSize !== undefined ? { pageSize: config.pageSize } : {}),
    ...(config.settings ?? {}),
  };
  return Object.fromEntries(
    SETTING_KEYS.map((k) => {
      if (!(k in stored)) return [k, UNKNOWN];
      const format = SETTINGS[k].format as (v: unknown) => string;
      return [k, format(stored[k])];
    }),
  ) as SettingTexts;
}

/**
 * Groups runs into configurations: runs with the same settings and model revisions are one
 * configuration (measured under several workloads, say). Labels follow the runs' order; each
 * gets the quality measured for its model revision (`npm run bench -- quality`), if any.
 */
export function configurationsOf(
  runs: readonly RunRecord[],
  qualityResults: readonly QualityResult[],
): {
  configurations: Configuration[];
  configOf: Map<string, Configuration>;
} {
  const byKey = new Map<string, Configuration>();
  const configOf = new Map<string, Configuration>();
  const letterOf = new Map(runs.map((run, i) => [run.runId, runLetterOf(i)]));
  for (const run of runs) {
    const settings = settingTextsOf(run.config);
    const modelRevisions = run.config.modelRevisions ?? {};
    const servedBy = servedByOf(run.config);
    const key = JSON.stringify([settings, Object.entries(modelRevisions).sort(), servedBy]);
    let config = byKey.get(key);
    if (!config) {
      config = {
        label: '',
        runIds: [],
        settings,
        modelRevisions,
        servedBy,
        quality: qualityOf(modelRevisions, qualityResults),
      };
      byKey.set(key, config);
    }
    config.runIds.push(run.runId);
    configOf.set(run.runId, config);
  }
  // Labelled by the runs it holds, so two runs with the same settings are still A and B.
  for (const config of byKey.values()) config.label = config.runIds.map((id) => letterOf.get(id)).join(', ');
  return { configurations: [...byKey.values()], configOf };
}

/** Where a run's requests were served, for runs against a remote engine. */
function servedByOf(config: RunConfig): string | null {
  const e = config.endpoint;
  return e ? `${e.engine} at ${e.baseUrl}, model ${e.serverModelId}` : null;
}

/** The measured quality of a configuration serving exactly one model revision, else null. */
function qualityOf(
  revisions: Record<string, string>,
  results: readonly QualityResult[],
): QualityResult | null {
  const all = Object.values(revisions);
  return all.length === 1 ? qualityOfRevision(results, all[0]!) : null;
}

/**
 * The settings whose values differ between the configurations served here (the rows the view
 * highlights); a remote engine's settings are its server's, not known here, so they differ from
 * nothing.
 */
export function differingKeys(configurations: readonly Configuration[]): SettingKey[] {
  const local = configurations.filter((c) => c.servedBy === null);
  return SETTING_KEYS.filter((k) => new Set(local.map((c) => c.settings[k])).size > 1);
}

/** True when the configurations serve different models or variants (then quality belongs in the table). */
export function isModelVaried(configurations: readonly Configuration[]): boolean {
  const models = new Set(
    configurations.map(
      (c) => `${c.settings.defaultModel}|${JSON.stringify(c.modelRevisions)}|${c.servedBy ?? ''}`,
    ),
  );
  return models.size > 1;
}
