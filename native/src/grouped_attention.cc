#include "grouped_attention.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <vector>

namespace ffhm {
namespace attention {
namespace {

// The hot loops are built for AVX-512, AVX2 and plain x86-64 and the loader picks one per CPU
// (GCC function multiversioning), so one addon build is fast on every x86 machine it reaches.
#if defined(__GNUC__) && !defined(__clang__) && defined(__x86_64__) && defined(__linux__)
#define FF_CLONES __attribute__((target_clones("arch=x86-64-v4", "arch=x86-64-v3", "default")))
#else
#define FF_CLONES
#endif
#define FF_INLINE inline __attribute__((always_inline))
// Register-sized loops (rows × chunks) unrolled whole, so their accumulators stay in registers.
#if defined(__GNUC__) && !defined(__clang__)
#define FF_UNROLL _Pragma("GCC unroll 16")
#else
#define FF_UNROLL
#endif

// Sixteen floats: GCC's vector extension, lowered to one zmm, two ymm or four xmm per clone.
typedef float V16 __attribute__((vector_size(64)));
typedef float V8 __attribute__((vector_size(32)));
typedef float V4 __attribute__((vector_size(16)));
typedef int32_t V16i __attribute__((vector_size(64)));
constexpr int kLanes = 16;

FF_INLINE V16 LoadV(const float* p) {
  V16 v;
  std::memcpy(&v, p, sizeof v);
  return v;
}
FF_INLINE void StoreV(float* p, V16 v) { std::memcpy(p, &v, sizeof v); }
FF_INLINE float Hsum(V16 v) {
  V8 lo, hi;
  std::memcpy(&lo, &v, sizeof lo);
  std::memcpy(&hi, reinterpret_cast<const char*>(&v) + sizeof lo, sizeof hi);
  const V8 s8 = lo + hi;
  V4 a, b;
  std::memcpy(&a, &s8, sizeof a);
  std::memcpy(&b, reinterpret_cast<const char*>(&s8) + sizeof a, sizeof b);
  const V4 s4 = a + b;
  return (s4[0] + s4[2]) + (s4[1] + s4[3]);
}

// float16 storage: IEEE half bits, converted with the compiler's _Float16 where it has one.
FF_INLINE float HalfToFloat(uint16_t bits) {
#if defined(__FLT16_MAX__)
  _Float16 h;
  std::memcpy(&h, &bits, sizeof h);
  return static_cast<float>(h);
#else
  const uint32_t sign = (bits & 0x8000u) << 16;
  uint32_t exponent = (bits >> 10) & 0x1fu;
  uint32_t mantissa = bits & 0x3ffu;
  uint32_t out;
  if (exponent == 0x1f) {
    out = sign | 0x7f800000u | (mantissa << 13);
  } else if (exponent != 0) {
    out = sign | ((exponent + 112) << 23) | (mantissa << 13);
  } else if (mantissa == 0) {
    out = sign;
  } else {
    exponent = 113;
    while ((mantissa & 0x400u) == 0) {
      mantissa <<= 1;
      exponent--;
    }
    out = sign | (exponent << 23) | ((mantissa & 0x3ffu) << 13);
  }
  float f;
  std::memcpy(&f, &out, sizeof f);
  return f;
#endif
}
FF_INLINE uint16_t FloatToHalf(float value) {
#if defined(__FLT16_MAX__)
  const _Float16 h = static_cast<_Float16>(value);
  uint16_t bits;
  std::memcpy(&bits, &h, sizeof bits);
  return bits;
#else
  uint32_t x;
  std::memcpy(&x, &value, sizeof x);
  const uint16_t sign = static_cast<uint16_t>((x >> 16) & 0x8000u);
  const int exponent = static_cast<int>((x >> 23) & 0xffu) - 112;
  uint32_t mantissa = x & 0x7fffffu;
  if (((x >> 23) & 0xffu) == 0xffu) return sign | 0x7c00u | (mantissa != 0 ? 0x200u : 0);
  if (exponent >= 0x1f) return sign | 0x7c00u;
  if (exponent <= 0) {
    if (exponent < -10) return sign;
    mantissa |= 0x800000u;
    const int shift = 14 - exponent;
    uint32_t half = mantissa >> shift;
    const uint32_t rest = mantissa & ((1u << shift) - 1);
    const uint32_t mid = 1u << (shift - 1);
    if (rest > mid || (rest == mid && (half & 1u))) half++;
    return sign | static_cast<uint16_t>(half);
  }
  uint32_t half = (static_cast<uint32_t>(exponent) << 10) | (mantissa >> 13);
  const uint32_t rest = mantissa & 0x1fffu;
  if (rest > 0x1000u || (rest == 0x1000u && (half & 1u))) half++;
  return sign | static_cast<uint16_t>(half);
#endif
}

FF_INLINE float Load(float x) { return x; }
FF_INLINE float Load(uint16_t x) { return HalfToFloat(x); }
FF_INLINE void Store(float* to, float x) { *to = x; }
FF_INLINE void Store(uint16_t* to, float x) { *to = FloatToHalf(x); }

// Where one (row b, K/V head)'s tensors live for element type E: its query heads' rows (BSNH
// query, packed or not), its new K and V rows, its rows of the past and present (BNSH) and its
// query heads' output rows; and which positions and keys its new tokens have.
template <typename E>
struct HeadView {
  const Problem& p;
  int b;
  int kvHead;
  int group;  // query heads per K/V head: head kvHead·group + g, g < group
  int total;  // row b's tokens, past and new
  int past;   // row b's tokens before this call

  HeadView(const Problem& problem, int row, int head)
      : p(problem),
        b(row),
        kvHead(head),
        group(problem.numHeads / problem.numKvHeads),
        total(problem.seqlensK[row] + 1),
        past(problem.isFirstPrompt ? 0 : total - problem.sequence) {}

  size_t TokenRow(int s) const { return static_cast<size_t>(b) * p.sequence + s; }
  // Head `head` of new token s in query (packed: q heads, then K, then V heads).
  const E* QueryRow(int s, int head) const {
    const size_t heads = p.key == nullptr ? p.numHeads + 2 * p.numKvHeads : p.numHeads;
    return static_cast<const E*>(p.query) + (TokenRow(s) * heads + head) * p.headSize;
  }
  const E* Key(int s) const {
    if (p.key == nullptr) return QueryRow(s, p.numHeads + kvHead);
    return static_cast<const E*>(p.key) + (TokenRow(s) * p.numKvHeads + kvHead) * p.headSize;
  }
  const E* Value(int s) const {
    if (p.value == nullptr) return QueryRow(s, p.numHeads + p.numKvHeads + kvHead);
    return static_cast<const E*>(p.value) + (TokenRow(s) * p.numKvHeads + kvHead) * p.headSize;
  }
  // This head's first row in a BNSH buffer of `length` rows (past or present, K or V).
  E* Rows(const void* buffer, int length) const {
    return static_cast<E*>(const_cast<void*>(buffer)) +
           (static_cast<size_t>(b) * p.numKvHeads + kvHead) * length * p.headSize;
  }
  E* Output(int s, int g) const {
    return static_cast<E*>(p.output) + (TokenRow(s) * p.numHeads + kvHead * group + g) * p.headSize;
  }
  // ONNX Runtime's position for new token s: past + s, or 1 for a padded token past the row's end.
  int Position(int s) const { return past + s < total ? past + s : 1; }
  // Keys new token s attends to: [begin, end), causal and, with a window, its last localWindow
  // keys, its own included (ONNX Runtime 1.30's CPU kernel; llama.cpp's n_swa).
  int KeyEnd(int s) const { return std::min(past + s + 1, p.presentLength); }
  int KeyBegin(int s) const {
    const int end = KeyEnd(s);
    return p.localWindow > 0 && end > p.localWindow ? end - p.localWindow : 0;
  }
};

// RoPE as ONNX Runtime's RotaryEmbedding applies it inside GroupQueryAttention (halves, or
// interleaved pairs), on the first 2·rotaryHalf values; the rest pass through. Times `scale`.
template <typename E>
FF_INLINE void RotateRow(const Problem& p, const E* x, int position, float scale, float* out) {
  const int half = p.rotaryHalf;
  const E* cos = static_cast<const E*>(p.cosCache) + static_cast<size_t>(position) * half;
  const E* sin = static_cast<const E*>(p.sinCache) + static_cast<size_t>(position) * half;
  const int step = p.isInterleaved ? 2 : 1;  // pair (i, i + half), or (2i, 2i + 1) interleaved
  const int partner = p.isInterleaved ? 1 : half;
  for (int i = 0; i < half; i++) {
    const int at = i * step;
    const float first = Load(x[at]);
    const float second = Load(x[at + partner]);
    const float c = Load(cos[i]);
    const float s = Load(sin[i]);
    out[at] = (first * c - second * s) * scale;
    out[at + partner] = (second * c + first * s) * scale;
  }
  for (int i = 2 * half; i < p.headSize; i++) out[i] = Load(x[i]) * scale;
}

template <typename E>
FF_INLINE void LoadRow(const Problem& p, const E* x, int position, float scale, float* out) {
  if (p.rotaryHalf > 0) return RotateRow(p, x, position, scale, out);
  for (int i = 0; i < p.headSize; i++) out[i] = Load(x[i]) * scale;
}

// Per-thread scratch, kept between calls (ONNX Runtime's pool threads live as long as the session).
struct Scratch {
  std::vector<float> query, scores, out, keys, values, transposed;
};
Scratch& ThreadScratch() {
  thread_local Scratch scratch;
  return scratch;
}

template <typename E>
void WriteNewKvOf(const Problem& p, int b, int kvHead) {
  const HeadView<E> at(p, b, kvHead);
  const size_t rowBytes = sizeof(E) * p.headSize;
  E* presentKey = at.Rows(p.presentKey, p.presentLength);
  E* presentValue = at.Rows(p.presentValue, p.presentLength);
  if (!p.isSharedBuffer) {
    // A present apart from the past starts as ONNX Runtime leaves it: zeros, then the past's rows.
    std::memset(presentKey, 0, rowBytes * p.presentLength);
    std::memset(presentValue, 0, rowBytes * p.presentLength);
    const int numPast = std::min(at.past, p.pastLength);
    if (p.pastKey != nullptr && numPast > 0) {
      std::memcpy(presentKey, at.Rows(p.pastKey, p.pastLength), rowBytes * numPast);
      std::memcpy(presentValue, at.Rows(p.pastValue, p.pastLength), rowBytes * numPast);
    }
  }
  std::vector<float>& rotated = ThreadScratch().keys;
  rotated.resize(p.headSize);
  for (int s = 0; s < p.sequence; s++) {
    const int row = at.past + s;
    if (row < 0 || row >= p.presentLength) continue;
    E* keyOut = presentKey + static_cast<size_t>(row) * p.headSize;
    LoadRow(p, at.Key(s), at.Position(s), 1.0f, rotated.data());
    for (int i = 0; i < p.headSize; i++) Store(keyOut + i, rotated[i]);
    std::memcpy(presentValue + static_cast<size_t>(row) * p.headSize, at.Value(s), rowBytes);
  }
}

// scores[r·stride] = q_r · key for rows r < numRows (q rows headSize apart), the key read once.
FF_INLINE void ScoreKey(const float* q, int numRows, int headSize, const float* key, float* scores, int stride) {
  if (headSize % kLanes != 0) {
    for (int r = 0; r < numRows; r++) {
      float sum = 0;
      for (int i = 0; i < headSize; i++) sum += q[r * headSize + i] * key[i];
      scores[r * stride] = sum;
    }
    return;
  }
  for (int r0 = 0; r0 < numRows; r0 += 4) {
    const int count = std::min(4, numRows - r0);
    V16 acc[4] = {};
    for (int c = 0; c < headSize; c += kLanes) {
      const V16 k = LoadV(key + c);
      FF_UNROLL
      for (int i = 0; i < 4; i++)
        if (i < count) acc[i] += LoadV(q + (r0 + i) * headSize + c) * k;
    }
    for (int i = 0; i < count; i++) scores[(r0 + i) * stride] = Hsum(acc[i]);
  }
}

// Lane shuffles of two vectors by a constant index list (0–15 the first's lanes, 16–31 the
// second's): GCC's __builtin_shuffle, or clang's __builtin_shufflevector (a macOS build).
#if defined(__clang__)
#define FF_SHUFFLE(a, b, ...) __builtin_shufflevector(a, b, __VA_ARGS__)
#else
#define FF_SHUFFLE(a, b, ...) __builtin_shuffle(a, b, V16i{__VA_ARGS__})
#endif

// Four levels of pairwise lane merges turn sixteen keys' partial-sum vectors into one vector of
// their sixteen scores: each level adds the lanes two shuffles line up, halving the partials.
FF_INLINE V16 MergeLevel1(V16 a, V16 b) {
  return FF_SHUFFLE(a, b, 0, 1, 2, 3, 4, 5, 6, 7, 16, 17, 18, 19, 20, 21, 22, 23) +
         FF_SHUFFLE(a, b, 8, 9, 10, 11, 12, 13, 14, 15, 24, 25, 26, 27, 28, 29, 30, 31);
}
FF_INLINE V16 MergeLevel2(V16 a, V16 b) {
  return FF_SHUFFLE(a, b, 0, 1, 2, 3, 8, 9, 10, 11, 16, 17, 18, 19, 24, 25, 26, 27) +
         FF_SHUFFLE(a, b, 4, 5, 6, 7, 12, 13, 14, 15, 20, 21, 22, 23, 28, 29, 30, 31);
}
FF_INLINE V16 MergeLevel3(V16 a, V16 b) {
  return FF_SHUFFLE(a, b, 0, 1, 4, 5, 8, 9, 12, 13, 16, 17, 20, 21, 24, 25, 28, 29) +
         FF_SHUFFLE(a, b, 2, 3, 6, 7, 10, 11, 14, 15, 18, 19, 22, 23, 26, 27, 30, 31);
}
FF_INLINE V16 MergeLevel4(V16 a, V16 b) {
  return FF_SHUFFLE(a, b, 0, 2, 4, 6, 8, 10, 12, 14, 16, 18, 20, 22, 24, 26, 28, 30) +
         FF_SHUFFLE(a, b, 1, 3, 5, 7, 9, 11, 13, 15, 17, 19, 21, 23, 25, 27, 29, 31);
}

// q · keys[j] as one vector of partial sums (headSize a multiple of 16).
FF_INLINE V16 DotPartial(const float* q, const float* key, int headSize) {
  V16 acc = LoadV(q) * LoadV(key);
  for (int c = kLanes; c < headSize; c += kLanes) acc += LoadV(q + c) * LoadV(key + c);
  return acc;
}

// The scores of one q row against 16 consecutive keys (rows headSize apart), as one vector.
FF_INLINE V16 ScoreSixteen(const float* q, const float* keys, int headSize) {
  V16 level2[4];
  FF_UNROLL
  for (int quad = 0; quad < 4; quad++) {
    const float* at = keys + static_cast<size_t>(quad) * 4 * headSize;
    const V16 pair0 = MergeLevel1(DotPartial(q, at, headSize), DotPartial(q, at + headSize, headSize));
    const V16 pair1 = MergeLevel1(DotPartial(q, at + 2 * headSize, headSize), DotPartial(q, at + 3 * headSize, headSize));
    level2[quad] = MergeLevel2(pair0, pair1);
  }
  return MergeLevel4(MergeLevel3(level2[0], level2[1]), MergeLevel3(level2[2], level2[3]));
}

// Scores of rows [r0, r0 + G) against 16 keys held transposed (keysT[d·16 + j]): each q value
// broadcast against a vector of 16 keys' d-th values, no horizontal sums (a prompt's many rows).
template <int G>
FF_INLINE void ScoreTransposed(const float* q, int headSize, const float* keysT, int r0, float* scores, int stride) {
  V16 acc[G] = {};
  for (int d = 0; d < headSize; d++) {
    const V16 k = LoadV(keysT + d * kLanes);
    FF_UNROLL
    for (int g = 0; g < G; g++) acc[g] += q[static_cast<size_t>(r0 + g) * headSize + d] * k;
  }
  FF_UNROLL
  for (int g = 0; g < G; g++) StoreV(scores + static_cast<size_t>(r0 + g) * stride, acc[g]);
}

// Rows at or above this many score 16-key tiles transposed once; fewer (a decode step's query
// heads) read each key row once and merge partial sums.
constexpr int kRowsForTransposed = 12;

// scores[r·stride + j] = q_r · keys[j] for every row and each of numKeys keys.
FF_INLINE void ScoreKeys(const float* q, int numRows, int headSize, const float* keys, int numKeys, float* scores,
                         int stride, std::vector<float>* transposed) {
  int j = 0;
  if (headSize % kLanes == 0 && numRows >= kRowsForTransposed) {
    transposed->resize(static_cast<size_t>(headSize) * kLanes);
    float* keysT = transposed->data();
    for (; j + kLanes <= numKeys; j += kLanes) {
      for (int k = 0; k < kLanes; k++)
        for (int d = 0; d < headSize; d++) keysT[d * kLanes + k] = keys[static_cast<size_t>(j + k) * headSize + d];
      int r0 = 0;
      for (; r0 + 8 <= numRows; r0 += 8) ScoreTransposed<8>(q, headSize, keysT, r0, scores + j, stride);
      for (; r0 < numRows; r0++) ScoreTransposed<1>(q, headSize, keysT, r0, scores + j, stride);
    }
  } else if (headSize % kLanes == 0) {
    for (; j + kLanes <= numKeys; j += kLanes)
      for (int r = 0; r < numRows; r++)
        StoreV(scores + static_cast<size_t>(r) * stride + j,
               ScoreSixteen(q + static_cast<size_t>(r) * headSize, keys + static_cast<size_t>(j) * headSize, headSize));
  }
  for (; j < numKeys; j++)
    ScoreKey(q, numRows, headSize, keys + static_cast<size_t>(j) * headSize, scores + j, stride);
}

// out rows (headSize apart) += probs[r·stride + j] · values[j] for rows [r0, r0 + G): G rows and
// C 16-lane chunks stay in registers so each value row is loaded once per group.
template <int G, int C>
FF_INLINE void WeighGroup(const float* probs, int stride, int r0, const float* values, int numKeys, int headSize,
                          int c0, float* out) {
  V16 acc[G][C] = {};
  for (int j = 0; j < numKeys; j++) {
    const float* row = values + static_cast<size_t>(j) * headSize + c0;
    V16 v[C];
    FF_UNROLL
    for (int c = 0; c < C; c++) v[c] = LoadV(row + c * kLanes);
    FF_UNROLL
    for (int g = 0; g < G; g++) {
      const float weight = probs[static_cast<size_t>(r0 + g) * stride + j];
      FF_UNROLL
      for (int c = 0; c < C; c++) acc[g][c] += weight * v[c];
    }
  }
  FF_UNROLL
  for (int g = 0; g < G; g++)
    FF_UNROLL
    for (int c = 0; c < C; c++) {
      float* to = out + static_cast<size_t>(r0 + g) * headSize + c0 + c * kLanes;
      StoreV(to, LoadV(to) + acc[g][c]);
    }
}

// Every row's weighted sum of the block's value rows: groups of four rows (C chunks wide), the
// last one to three rows as one group, so a decode step's three query heads read V once.
template <int C>
FF_INLINE void WeighValues(const float* probs, int stride, int numRows, const float* values, int numKeys,
                           int headSize, float* out) {
  for (int c0 = 0; c0 < headSize; c0 += C * kLanes) {
    int r0 = 0;
    for (; r0 + 4 <= numRows; r0 += 4) WeighGroup<4, C>(probs, stride, r0, values, numKeys, headSize, c0, out);
    const int rest = numRows - r0;
    if (rest == 3) WeighGroup<3, C>(probs, stride, r0, values, numKeys, headSize, c0, out);
    if (rest == 2) WeighGroup<2, C>(probs, stride, r0, values, numKeys, headSize, c0, out);
    if (rest == 1) WeighGroup<1, C>(probs, stride, r0, values, numKeys, headSize, c0, out);
  }
}

FF_INLINE void WeighValuesAny(const float* probs, int stride, int numRows, const float* values, int numKeys,
                              int headSize, float* out) {
  if (headSize % (4 * kLanes) == 0) return WeighValues<4>(probs, stride, numRows, values, numKeys, headSize, out);
  if (headSize % (2 * kLanes) == 0) return WeighValues<2>(probs, stride, numRows, values, numKeys, headSize, out);
  if (headSize % kLanes == 0) return WeighValues<1>(probs, stride, numRows, values, numKeys, headSize, out);
  for (int r = 0; r < numRows; r++)
    for (int j = 0; j < numKeys; j++) {
      const float weight = probs[r * stride + j];
      for (int i = 0; i < headSize; i++) out[r * headSize + i] += weight * values[static_cast<size_t>(j) * headSize + i];
    }
}

// Lane-wise max and min (clang's builtins on a macOS build; GCC's vector conditional elsewhere).
FF_INLINE V16 MaxV(V16 a, V16 b) {
#if defined(__clang__)
  return __builtin_elementwise_max(a, b);
#else
  return a > b ? a : b;
#endif
}
FF_INLINE V16 MinV(V16 a, V16 b) {
#if defined(__clang__)
  return __builtin_elementwise_min(a, b);
#else
  return a < b ? a : b;
#endif
}

// e^x for 16 lanes: 2^n · p(r) with x = n·ln2 + r, |r| ≤ ln2/2, p Cephes' degree-6 polynomial
// (relative error ~1e-7, as MLAS's softmax); x is clamped to float's finite range first.
FF_INLINE V16 ExpV(V16 x) {
  const V16 clamped = MaxV(MinV(x, V16{} + 88.7f), V16{} - 87.3f);
  const float kRound = 12582912.0f;  // 1.5·2^23: adding and subtracting it rounds to an integer
  const V16 n = (clamped * 1.44269504f + kRound) - kRound;
  const V16 r = (clamped - n * 0.693359375f) + n * 2.12194440e-4f;
  V16 p = 1.9875691500e-4f * r + 1.3981999507e-3f;
  p = p * r + 8.3334519073e-3f;
  p = p * r + 4.1665795894e-2f;
  p = p * r + 1.6666665459e-1f;
  p = p * r + 5.0000001201e-1f;
  p = p * (r * r) + r + 1.0f;
  const V16i scale = (__builtin_convertvector(n, V16i) + 127) << 23;
  V16 twoToN;
  std::memcpy(&twoToN, &scale, sizeof twoToN);
  return p * twoToN;
}

FF_INLINE float MaxOf(const float* x, int count) {
  float max = x[0];
  int j = 0;
  if (count >= kLanes) {
    V16 m = LoadV(x);
    for (j = kLanes; j + kLanes <= count; j += kLanes) {
      const V16 v = LoadV(x + j);
      m = MaxV(v, m);
    }
    for (int i = 0; i < kLanes; i++) max = std::max(max, m[i]);
  }
  for (; j < count; j++) max = std::max(max, x[j]);
  return max;
}

// x[j] = e^(x[j] − max) in place; returns their sum.
FF_INLINE float ExpShiftedSum(float* x, int count, float max) {
  V16 sum = {};
  int j = 0;
  for (; j + kLanes <= count; j += kLanes) {
    const V16 e = ExpV(LoadV(x + j) - max);
    StoreV(x + j, e);
    sum += e;
  }
  float total = Hsum(sum);
  for (; j < count; j++) {
    x[j] = std::exp(x[j] - max);
    total += x[j];
  }
  return total;
}

// Caps row[0, count) (softcap) and replaces each value by e^(value − max), max its largest
// value but at least `floor`; returns their sum and sets *max. count ≥ 1.
FF_INLINE float CappedExp(const Problem& p, float* row, int count, float floor, float* max) {
  if (p.softcap > 0)
    for (int j = 0; j < count; j++) row[j] = p.softcap * std::tanh(row[j] / p.softcap);
  *max = std::max(MaxOf(row, count), floor);
  return ExpShiftedSum(row, count, *max);
}

// Softmax of scores[begin, end) in place (capped first; "smooth" adds a zero logit); zeros outside.
FF_INLINE void SoftmaxRow(const Problem& p, float* scores, int numKeys, int begin, int end) {
  for (int j = 0; j < begin; j++) scores[j] = 0;
  for (int j = std::max(end, 0); j < numKeys; j++) scores[j] = 0;
  if (end <= begin) return;
  float* row = scores + begin;
  const int count = end - begin;
  float max;
  const float floor = p.isSmoothSoftmax ? 0.0f : -INFINITY;
  const float sum = CappedExp(p, row, count, floor, &max) + (p.isSmoothSoftmax ? std::exp(-max) : 0.0f);
  const float inverse = 1.0f / sum;
  for (int j = 0; j < count; j++) row[j] *= inverse;
}

constexpr int kRowsPerBlock = 96;
constexpr int kKeysPerTile = 64;
constexpr size_t kMaxScoreFloats = size_t{4} << 20;  // a block's scores: at most 16 MiB per thread

// Query tokens per work item: up to ~96 rows (a prompt's transposed tiles amortized over them),
// fewer when the block's scores (rows × keys) would pass kMaxScoreFloats.
int TokensPerBlock(const Problem& p) {
  const int group = p.numHeads / p.numKvHeads;
  const size_t numKeys = static_cast<size_t>(std::max(p.presentLength, 1));
  const size_t byMemory = kMaxScoreFloats / (numKeys * group);
  return static_cast<int>(std::clamp<size_t>(std::min<size_t>(kRowsPerBlock / group, byMemory), 1, 1 << 20));
}


// Present rows [from, from + count) of one head as float32: in place for float, converted for half.
template <typename E>
FF_INLINE const float* RowsAsFloat(const E* rows, int count, int headSize, std::vector<float>* scratch) {
  if constexpr (sizeof(E) == sizeof(float)) {
    (void)count, (void)headSize, (void)scratch;
    return reinterpret_cast<const float*>(rows);
  } else {
    scratch->resize(static_cast<size_t>(count) * headSize);
    for (size_t i = 0; i < scratch->size(); i++) (*scratch)[i] = Load(rows[i]);
    return scratch->data();
  }
}

// scores (rows numKeys apart) of every query row against present's keys [from, from + numKeys),
// tile by tile (converted to float32 per tile for a half model).
template <typename E>
FF_INLINE void ScoreRange(const E* keys, int from, int numKeys, int numRows, int headSize, Scratch* scratch) {
  for (int j0 = 0; j0 < numKeys; j0 += kKeysPerTile) {
    const int count = std::min(kKeysPerTile, numKeys - j0);
    const float* tile = RowsAsFloat(keys + static_cast<size_t>(from + j0) * headSize, count, headSize, &scratch->keys);
    ScoreKeys(scratch->query.data(), numRows, headSize, tile, count, scratch->scores.data() + j0, numKeys,
              &scratch->transposed);
  }
}

// scratch->out rows += the weights in scores times present's values [from, from + numKeys).
template <typename E>
FF_INLINE void WeighRange(const E* values, int from, int numKeys, int numRows, int headSize, Scratch* scratch) {
  for (int j0 = 0; j0 < numKeys; j0 += kKeysPerTile) {
    const int count = std::min(kKeysPerTile, numKeys - j0);
    const float* tile =
        RowsAsFloat(values + static_cast<size_t>(from + j0) * headSize, count, headSize, &scratch->values);
    WeighValuesAny(scratch->scores.data() + j0, numKeys, numRows, tile, count, headSize, scratch->out.data());
  }
}

// scratch->query rows r < numRows: new token first + r / group's query head kvHead·group + r % group,
// rotated and scaled.
template <typename E>
FF_INLINE void LoadQueries(const HeadView<E>& at, int first, int numRows, Scratch* scratch) {
  const int headSize = at.p.headSize;
  scratch->query.resize(static_cast<size_t>(numRows) * headSize);
  for (int r = 0; r < numRows; r++) {
    const int s = first + r / at.group;
    LoadRow(at.p, at.QueryRow(s, at.kvHead * at.group + r % at.group), at.Position(s), at.p.scale,
            scratch->query.data() + static_cast<size_t>(r) * headSize);
  }
}

template <typename E>
FF_INLINE void AttendBlockOf(const Problem& p, int b, int kvHead, int block) {
  const HeadView<E> at(p, b, kvHead);
  const int headSize = p.headSize;
  const int perBlock = TokensPerBlock(p);
  const int first = block * perBlock;
  const int last = std::min(p.sequence, first + perBlock);
  if (first >= last) return;
  const int numRows = (last - first) * at.group;  // row r: token first + r / group, query head r % group
  const int keyBegin = at.KeyBegin(first);
  const int numKeys = std::max(0, at.KeyEnd(last - 1) - keyBegin);
  Scratch& scratch = ThreadScratch();
  scratch.scores.resize(static_cast<size_t>(numRows) * std::max(numKeys, 1));
  scratch.out.assign(static_cast<size_t>(numRows) * headSize, 0.0f);
  LoadQueries(at, first, numRows, &scratch);
  ScoreRange(at.Rows(p.presentKey, p.presentLength), keyBegin, numKeys, numRows, headSize, &scratch);
  for (int r = 0; r < numRows; r++) {
    const int s = first + r / at.group;
    SoftmaxRow(p, scratch.scores.data() + static_cast<size_t>(r) * numKeys, numKeys, at.KeyBegin(s) - keyBegin,
               at.KeyEnd(s) - keyBegin);
  }
  WeighRange(at.Rows(p.presentValue, p.presentLength), keyBegin, numKeys, numRows, headSize, &scratch);
  for (int r = 0; r < numRows; r++) {
    E* to = at.Output(first + r / at.group, r % at.group);
    for (int i = 0; i < headSize; i++) Store(to + i, scratch.out[static_cast<size_t>(r) * headSize + i]);
  }
}

// A decode step's keys in splits (flash-decoding): each split keeps, per query row, its max
// score, its sum of e^(score − max) and its unnormalized weighted V; CombineSplits merges them.
// Splits give a many-core machine work when a model has few K/V heads.
constexpr int kKeysPerSplit = 512;
constexpr int kMaxKeySplits = 16;

FF_INLINE int KeysPerSplit(const Problem& p, int numKeys) {
  const int perSplit = (numKeys + p.numKeySplits - 1) / p.numKeySplits;
  return (perSplit + kLanes - 1) / kLanes * kLanes;
}

// Split `split` of (b, kvHead): per query head, headSize + 2 floats (max, sum, weighted V).
FF_INLINE float* PartialOf(const Problem& p, int b, int kvHead, int split) {
  const int group = p.numHeads / p.numKvHeads;
  const size_t item = (static_cast<size_t>(b) * p.numKvHeads + kvHead) * p.numKeySplits + split;
  return p.partials + item * group * (p.headSize + 2);
}

template <typename E>
FF_INLINE void AttendSplitOf(const Problem& p, int b, int kvHead, int split) {
  const HeadView<E> at(p, b, kvHead);
  const int headSize = p.headSize;
  const int stride = headSize + 2;  // per row: max, sum, then the weighted V
  const int keyBegin = at.KeyBegin(0);
  const int perSplit = KeysPerSplit(p, at.KeyEnd(0) - keyBegin);
  const int from = keyBegin + split * perSplit;
  const int numKeys = std::max(0, std::min(at.KeyEnd(0), from + perSplit) - from);
  float* partial = PartialOf(p, b, kvHead, split);
  Scratch& scratch = ThreadScratch();
  scratch.scores.resize(static_cast<size_t>(at.group) * std::max(numKeys, 1));
  scratch.out.assign(static_cast<size_t>(at.group) * headSize, 0.0f);
  if (numKeys > 0) LoadQueries(at, 0, at.group, &scratch);
  ScoreRange(at.Rows(p.presentKey, p.presentLength), from, numKeys, at.group, headSize, &scratch);
  for (int r = 0; r < at.group; r++) {
    float* row = scratch.scores.data() + static_cast<size_t>(r) * numKeys;
    partial[r * stride] = -INFINITY;
    partial[r * stride + 1] = numKeys > 0 ? CappedExp(p, row, numKeys, -INFINITY, &partial[r * stride]) : 0.0f;
  }
  WeighRange(at.Rows(p.presentValue, p.presentLength), from, numKeys, at.group, headSize, &scratch);
  for (int r = 0; r < at.group; r++)
    std::memcpy(partial + r * stride + 2, scratch.out.data() + r * headSize, sizeof(float) * headSize);
}

// Merges (b, kvHead)'s splits into its output rows: rescaled to the largest max, divided by the sum.
template <typename E>
void CombineSplitsOf(const Problem& p, int b, int kvHead) {
  const HeadView<E> at(p, b, kvHead);
  const int stride = p.headSize + 2;
  std::vector<float>& out = ThreadScratch().out;
  for (int r = 0; r < at.group; r++) {
    float max = -INFINITY;
    for (int split = 0; split < p.numKeySplits; split++) {
      const float* partial = PartialOf(p, b, kvHead, split) + r * stride;
      if (partial[1] > 0) max = std::max(max, partial[0]);
    }
    if (p.isSmoothSoftmax) max = std::max(max, 0.0f);
    float sum = p.isSmoothSoftmax ? std::exp(-max) : 0.0f;
    out.assign(p.headSize, 0.0f);
    for (int split = 0; split < p.numKeySplits; split++) {
      const float* partial = PartialOf(p, b, kvHead, split) + r * stride;
      if (!(partial[1] > 0)) continue;
      const float weight = std::exp(partial[0] - max);
      sum += weight * partial[1];
      for (int i = 0; i < p.headSize; i++) out[i] += weight * partial[2 + i];
    }
    const float inverse = sum > 0 ? 1.0f / sum : 0.0f;
    E* to = at.Output(0, r);
    for (int i = 0; i < p.headSize; i++) Store(to + i, out[i] * inverse);
  }
}

FF_CLONES void AttendSplitFloat(const Problem& p, int b, int kvHead, int split) {
  AttendSplitOf<float>(p, b, kvHead, split);
}
FF_CLONES void AttendSplitHalf(const Problem& p, int b, int kvHead, int split) {
  AttendSplitOf<uint16_t>(p, b, kvHead, split);
}

FF_CLONES void AttendBlockFloat(const Problem& p, int b, int kvHead, int block) {
  AttendBlockOf<float>(p, b, kvHead, block);
}
FF_CLONES void AttendBlockHalf(const Problem& p, int b, int kvHead, int block) {
  AttendBlockOf<uint16_t>(p, b, kvHead, block);
}

}  // namespace

void WriteNewKv(const Problem& problem, int b, int kvHead) {
  if (problem.element == Element::kFloat) return WriteNewKvOf<float>(problem, b, kvHead);
  WriteNewKvOf<uint16_t>(problem, b, kvHead);
}

int NumQueryBlocks(const Problem& problem) {
  const int perBlock = TokensPerBlock(problem);
  return (problem.sequence + perBlock - 1) / perBlock;
}

void AttendBlock(const Problem& problem, int b, int kvHead, int block) {
  if (problem.element == Element::kFloat) return AttendBlockFloat(problem, b, kvHead, block);
  AttendBlockHalf(problem, b, kvHead, block);
}

int NumKeySplits(const Problem& problem, int numThreads) {
  if (problem.sequence != 1) return 1;
  int maxKeys = 1;
  for (int b = 0; b < problem.batch; b++) maxKeys = std::max(maxKeys, problem.seqlensK[b] + 1);
  const int byKeys = (maxKeys + kKeysPerSplit - 1) / kKeysPerSplit;
  const int numItems = problem.batch * problem.numKvHeads;
  const int byThreads = (2 * numThreads + numItems - 1) / numItems;  // about two items per thread
  return std::clamp(std::min(byKeys, byThreads), 1, kMaxKeySplits);
}

void AttendSplit(const Problem& problem, int b, int kvHead, int split) {
  if (problem.element == Element::kFloat) return AttendSplitFloat(problem, b, kvHead, split);
  AttendSplitHalf(problem, b, kvHead, split);
}

void CombineSplits(const Problem& problem, int b, int kvHead) {
  if (problem.element == Element::kFloat) return CombineSplitsOf<float>(problem, b, kvHead);
  CombineSplitsOf<uint16_t>(problem, b, kvHead);
}

}  // namespace attention
}  // namespace ffhm
