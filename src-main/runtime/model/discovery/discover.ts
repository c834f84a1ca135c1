// Reads every usual place once, read-only: what each holds, or why it could not be read. A
// place's failure is reported on that place and never stops the others or the listing.

import { stat } from 'node:fs/promises';
import type { DiscoveredSource, PlaceStateName } from '../model-sources';
import type { FoundModel } from './found-model';
import { hfCacheModels } from './hf-cache';
import { lmStudioModels } from './lm-studio-models';
import { ollamaModels } from './ollama-store';
import { usualPlaces } from './places';
import type { DiscoveryEnvironment } from './places';

/** What one place held when it was last read (see PLACE_STATES). */
export interface PlaceState {
  source: DiscoveredSource;
  path: string;
  state: PlaceStateName;
  /** Models found there (null unless `found`). */
  numModels: number | null;
  /** Why it could not be read (`unreadable`), or null. */
  reason: string | null;
}

const READERS: Record<DiscoveredSource, (root: string) => Promise<FoundModel[]>> = {
  ollama: ollamaModels,
  'lm-studio': lmStudioModels,
  'hf-cache': hfCacheModels,
};

/** Every model of every usual place, and what each place held. */
export async function discoverModels(
  environment: DiscoveryEnvironment,
): Promise<{ models: FoundModel[]; places: PlaceState[] }> {
  const models: FoundModel[] = [];
  const places: PlaceState[] = [];
  for (const place of usualPlaces(environment, true)) {
    const state = { ...place, numModels: null, reason: null };
    const info = await stat(place.path).catch((error: NodeJS.ErrnoException) => error);
    if (info instanceof Error) {
      const isAbsent = info.code === 'ENOENT' || info.code === 'ENOTDIR';
      places.push({
        ...state,
        state: isAbsent ? 'absent' : 'unreadable',
        reason: isAbsent ? null : reasonOf(info),
      });
      continue;
    }
    if (!info.isDirectory()) {
      places.push({ ...state, state: 'unreadable', reason: 'is a file, not a folder' });
      continue;
    }
    try {
      const found = await READERS[place.source](place.path);
      models.push(...found);
      places.push({ ...state, state: 'found', numModels: found.length });
    } catch (error) {
      places.push({ ...state, state: 'unreadable', reason: reasonOf(error as NodeJS.ErrnoException) });
    }
  }
  return { models, places };
}

/** The places discovery would read, none read (discovery is off). */
export function placesWhenOff(environment: DiscoveryEnvironment): PlaceState[] {
  return usualPlaces(environment, false).map((p) => ({ ...p, state: 'off', numModels: null, reason: null }));
}

function reasonOf(error: NodeJS.ErrnoException): string {
  if (error.code === 'EACCES' || error.code === 'EPERM') return 'not readable (permission denied)';
  return `cannot be read (${error.code ?? error.message})`;
}
