import type { SlotStatus } from '../../../src-main/service/contract';

/** A slot's status in Simple's words; Expert prints the status itself (its name in the design). */
export const SIMPLE_STATUS_WORDS: Readonly<Record<SlotStatus, string>> = {
  empty: 'not loaded',
  prefetching: 'loading',
  resident: 'loaded',
  active: 'answering',
  evicting: 'unloading',
  failed: 'failed',
};

/** The two slot actions as each mode names them. */
export const ACTION_WORDS = {
  simple: { prefetch: 'Load', evict: 'Unload' },
  expert: { prefetch: 'Prefetch', evict: 'Evict' },
} as const;

/** The badge text of a status (`null`: a model with no slot yet). */
export function statusWords(status: SlotStatus | null, isExpert: boolean): string {
  if (isExpert) return status ?? 'no slot';
  return SIMPLE_STATUS_WORDS[status ?? 'empty'];
}
