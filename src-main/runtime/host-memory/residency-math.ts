/** Turning page counts into the Residency shape (shared by both implementations). */
import type { Residency } from './types';

/** Adds residentPct (0–100; an empty range counts as fully resident). */
export function withResidentPct(count: Omit<Residency, 'residentPct'>): Residency {
  const residentPct = count.totalBytes === 0 ? 100 : (100 * count.residentBytes) / count.totalBytes;
  return { ...count, residentPct };
}
