import { mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { PRIVATE_FILE_MODE, PRIVATE_FOLDER_MODE } from '../private-files';
import path from 'node:path';
import { z } from 'zod';
import { QualityResultSchema } from './contract/quality-schemas';
import type { QualityResult } from './contract/quality-schemas';

/** The data folder's file of measured variant quality, written by `npm run bench -- quality`. */
export const QUALITY_FILE = 'quality.json';

const QualityFileSchema = z.object({ results: z.array(QualityResultSchema) });

/**
 * Every stored quality result, newest first. A missing file is no results; an unreadable or
 * malformed one is reported as an Error value (the caller shows it), never thrown at a request.
 */
export function readQualityResults(dataDir: string): QualityResult[] | Error {
  let text: string;
  try {
    text = readFileSync(path.join(dataDir, QUALITY_FILE), 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return [];
    return new Error(`${QUALITY_FILE}: cannot be read (${(error as NodeJS.ErrnoException).code ?? 'error'})`);
  }
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    return new Error(`${QUALITY_FILE}: malformed JSON`);
  }
  const parsed = QualityFileSchema.safeParse(json);
  if (!parsed.success) return new Error(`${QUALITY_FILE}: ${parsed.error.issues[0]?.message ?? 'malformed'}`);
  return [...parsed.data.results].sort((a, b) => b.measuredAtWallMs - a.measuredAtWallMs);
}

/** Adds results, replacing older ones of the same revision measured on the same text; atomic write. */
export function storeQualityResults(dataDir: string, results: readonly QualityResult[]): void {
  const existing = readQualityResults(dataDir);
  const kept = (existing instanceof Error ? [] : existing).filter(
    (old) => !results.some((r) => r.modelRevision === old.modelRevision && r.textSha256 === old.textSha256),
  );
  mkdirSync(dataDir, { recursive: true, mode: PRIVATE_FOLDER_MODE });
  const file = path.join(dataDir, QUALITY_FILE);
  writeFileSync(`${file}.tmp`, `${JSON.stringify({ results: [...results, ...kept] }, null, 2)}\n`, {
    mode: PRIVATE_FILE_MODE,
  });
  renameSync(`${file}.tmp`, file);
}

/** The newest result for a model revision, if any. */
export function qualityOfRevision(
  results: readonly QualityResult[],
  modelRevision: string,
): QualityResult | null {
  return results.find((r) => r.modelRevision === modelRevision) ?? null;
}
