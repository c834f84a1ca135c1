// The session alternatives `session-profile.ts` compares on a converted graph, and what its
// child process (session-profile-child.ts) is asked and answers.

import type { KvLayout } from '../onnx-llama/ort-runner';

/** The session alternatives compared, each against a slot's own options (`slot`). */
export const ALTERNATIVES = {
  slot: 'as a slot builds it: optimization level all, weights pre-packed',
  basic: 'optimization level basic (the converted graph needs no fusion)',
  'no-prepack': '`session.disable_prepacking`: MatMulNBits unpacks its weights at every run',
  'optimized-copy':
    "ORT's optimized graph saved once (level basic, no pre-packed weights), built with optimization disabled",
  variant: 'another graph of the same weights (`--variant FILE`, beside the data), built as a slot builds it',
} as const;

/** One alternative's name. */
export type AlternativeName = keyof typeof ALTERNATIVES;

/** What the parent asks of one child. */
export interface ProfileJob {
  /** The graph the session is built from (a converted folder's onnx/model.onnx, or the optimized copy). */
  graph: string;
  alternative: AlternativeName;
  numThreads: number;
  kv: KvLayout;
  /** Where to save ORT's optimized graph instead of measuring (the optimized copy's one-time save), or null. */
  saveTo: string | null;
}

/** One child's figures (ms, MB). */
export interface ProfileFigures {
  buildMs: number;
  rssMb: number;
  anonMb: number;
  fileMb: number;
  /** The 87-token prompt's forward (1 token without pre-packing), and the median decode step after it. */
  prefillMs: number;
  itlP50Ms: number;
}
