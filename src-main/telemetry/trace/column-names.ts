import type { TtftPart } from '../timeline/schema';

/**
 * Each TTFT part's column name in CSV and SQL: the part in snake_case with its unit. One list,
 * so a stored row, a CSV export and the docs name every part the same way.
 */
export const PART_COLUMN_NAMES: Readonly<Record<TtftPart, string>> = {
  inbox: 'inbox_ms',
  route: 'route_ms',
  slotLoad: 'slot_load_ms',
  queue: 'queue_ms',
  requeue: 'requeue_ms',
  lostPrefill: 'lost_prefill_ms',
  activation: 'activation_ms',
  contextLookup: 'context_lookup_ms',
  prefill: 'prefill_ms',
  emit: 'emit_ms',
};
