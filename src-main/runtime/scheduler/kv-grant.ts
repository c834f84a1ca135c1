import { pageBytes } from '../model/kv-geometry';
import type { KvGeometry } from '../model/kv-geometry';
import type { Slot } from '../slots/slot';

/**
 * The size a bound slot's one K/V buffer (SlotKv) may have during a step: a row per seated
 * sequence, each row `capacity` tokens. The scheduler sends it with every step job and counts
 * exactly these bytes against the K/V budget; the worker lays its buffer out to it (growing or
 * shrinking, its live rows kept), so the budget counts the memory really allocated.
 */
export interface KvGrant {
  numRows: number;
  /** Tokens each row can hold (the longest seated sequence after the step, rounded up). */
  capacity: number;
}

/** Tokens a row's capacity is rounded to at most (a long answer relayouts the buffer once per this many). */
const ROOM_STEP_TOKENS = 256;
/** A rounding step never exceeds this share of what the budget holds in one row, so rounding stays small under a tight budget. */
const MAX_STEP_SHARE = 16;

/** Whether `slot`'s last load runs its K/V in one buffer written in place (the bound path). */
export function hasKvBuffer(slot: Pick<Slot, 'runPath'>): boolean {
  return slot.runPath?.path === 'bound';
}

/** Bytes of one token of K/V (every layer's key and value) in `geometry`. */
export function tokenBytesOf(geometry: KvGeometry): number {
  return pageBytes(geometry, 1);
}

/**
 * Tokens a row's capacity is rounded to: whole pages, about ROOM_STEP_TOKENS, but at most a
 * sixteenth of the tokens the whole budget holds (never less than a page).
 */
export function capacityStepOf(budgetBytes: number, geometry: KvGeometry, pageSize: number): number {
  const budgetTokens = Math.floor(budgetBytes / tokenBytesOf(geometry));
  const roomPages = Math.ceil(ROOM_STEP_TOKENS / pageSize);
  const sharePages = Math.floor(budgetTokens / (MAX_STEP_SHARE * pageSize));
  return pageSize * Math.max(1, Math.min(roomPages, sharePages));
}

/** The grant for rows growing to `numTokens` each (tokens after the step), rounded to `step`; null for no row. */
export function kvGrantOf(numTokens: readonly number[], step: number): KvGrant | null {
  if (numTokens.length === 0) return null;
  return { numRows: numTokens.length, capacity: Math.ceil(Math.max(...numTokens) / step) * step };
}

/** Bytes a buffer of `grant`'s size allocates. */
export function kvGrantBytes(grant: KvGrant | null, geometry: KvGeometry): number {
  return grant ? grant.numRows * grant.capacity * tokenBytesOf(geometry) : 0;
}
