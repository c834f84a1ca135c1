/**
 * The `k` largest finite logits, handed out largest first, in O(vocab + k + m·log k) for m
 * taken: a partial selection (quickselect) finds the k, a heap built on them in O(k) gives them
 * in order, and sampling usually stops after a few. Ties go to the lower index, so the order is
 * exactly a full sort's (`logits[b] - logits[a] || a - b`) cut to k.
 */
export class TopCandidates {
  private size: number;

  private constructor(
    private readonly logits: Float32Array,
    /** The candidates' token ids, a heap on `isBefore` in `[0, size)`. */
    readonly ids: Int32Array,
  ) {
    this.size = ids.length;
    for (let at = (this.size >> 1) - 1; at >= 0; at--) this.siftDown(at);
  }

  /** The top `k` finite entries of `logits` (all finite ones when `k` reaches their count). */
  static of(logits: Float32Array, k: number): TopCandidates {
    const finite = finiteIds(logits);
    if (k < finite.length) selectFirst(logits, finite, k);
    return new TopCandidates(logits, k < finite.length ? finite.subarray(0, k) : finite);
  }

  /** How many candidates are still to be taken. */
  get numLeft(): number {
    return this.size;
  }

  /** The largest candidate not yet taken, without taking it. */
  peek(): number {
    return this.ids[0]!;
  }

  /** Takes the largest candidate left (ties: the lowest id); call only while `numLeft` > 0. */
  take(): number {
    const top = this.ids[0]!;
    this.size--;
    this.ids[0] = this.ids[this.size]!;
    this.ids[this.size] = top;
    this.siftDown(0);
    return top;
  }

  private siftDown(from: number): void {
    const { ids, logits, size } = this;
    let at = from;
    for (;;) {
      const left = 2 * at + 1;
      if (left >= size) return;
      const right = left + 1;
      const child = right < size && isBefore(logits, ids[right]!, ids[left]!) ? right : left;
      if (!isBefore(logits, ids[child]!, ids[at]!)) return;
      swap(ids, at, child);
      at = child;
    }
  }
}

/** Whether token `a` ranks before token `b`: larger logit first, then the lower id (a strict total order). */
function isBefore(logits: Float32Array, a: number, b: number): boolean {
  const la = logits[a]!;
  const lb = logits[b]!;
  return la > lb || (la === lb && a < b);
}

function finiteIds(logits: Float32Array): Int32Array {
  const ids = new Int32Array(logits.length);
  let count = 0;
  for (let i = 0; i < logits.length; i++) if (Number.isFinite(logits[i]!)) ids[count++] = i;
  return ids.subarray(0, count);
}

/**
 * Rearranges `ids` so its first `k` are the `k` that rank first (in no order): Hoare quickselect,
 * expected O(n). Pivots are drawn from a fixed xorshift sequence, never from the sampler's RNG
 * (the draws of a seed must not depend on the vocabulary), and sorted logits are not a worst case.
 */
function selectFirst(logits: Float32Array, ids: Int32Array, k: number): void {
  let low = 0;
  let high = ids.length - 1;
  let state = 0x9e3779b9;
  while (low < high) {
    state ^= state << 13;
    state ^= state >>> 17;
    state ^= state << 5;
    const pivot = ids[low + ((state >>> 0) % (high - low + 1))]!;
    let i = low;
    let j = high;
    while (i <= j) {
      while (isBefore(logits, ids[i]!, pivot)) i++;
      while (isBefore(logits, pivot, ids[j]!)) j--;
      if (i <= j) swap(ids, i++, j--);
    }
    // Now [low, j] rank at or before the pivot, [i, high] at or after it, and (j, i) is the pivot.
    if (k - 1 <= j) high = j;
    else if (k - 1 >= i) low = i;
    else return;
  }
}

function swap(ids: Int32Array, a: number, b: number): void {
  const held = ids[a]!;
  ids[a] = ids[b]!;
  ids[b] = held;
}
