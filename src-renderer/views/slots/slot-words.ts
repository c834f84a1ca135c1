import type { SlotStatus } from '../../../src-main/telemetry/residency/schema';

/**
 * A slot's status in words, the same in Simple and Expert (Expert adds figures beside them,
 * never other names for the same state).
 */
export const STATUS_WORDS: Readonly<Record<SlotStatus, string>> = {
  empty: 'not loaded',
  prefetching: 'loading',
  resident: 'loaded',
  active: 'answering',
  evicting: 'unloading',
  failed: 'failed',
};

/** The two slot actions, the same in both modes: load a model into memory, unload it. */
export const ACTION_WORDS = { load: 'Load', unload: 'Unload' } as const;

/** The badge text of a status (`null`: a model with no slot yet, which is not loaded). */
export function statusWords(status: SlotStatus | null): string {
  return STATUS_WORDS[status ?? 'empty'];
}
