/**
 * The form load-time fusion writes: part of the fused-graph cache's key, so a changed recognizer
 * or writer never reads an older entry. Raise it with any change to what either produces. A leaf
 * of its own: the graph cache's sweep (main thread) reads it without loading the recognizer.
 * 1: first form; 2: the outcome records nodes per decode step before and after; 3: q/k/v
 * biases (Qwen2) fuse, where form 2 refused them.
 */
export const FUSE_AT_LOAD_FORM = 3;
