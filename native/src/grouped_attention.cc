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

// Sixteen floats: GCC's vector extension, lowered to one zmm, two ymm or four xmm per clone.
typedef float V16 __attribute__((vector_size(64)));
typedef float V8 __attribute__((vector_size(32)));
typedef float V4 __attribute__((vector_size(16)));
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

// Where a row's tensors live (BSNH query/key/value, BNSH present) for element type E.
template <typename E>
struct Layout {
  const Problem& p;
  int total;  // row b's tokens, past and new
  int past;   // row b's tokens before this call

  Layout(const Problem& problem, int b)
      : p(problem), total(problem.seqlensK[b] + 1), past(problem.isFirstPrompt ? 0 : total - problem.sequence) {}

  size_t TokenRow(int b, int s) const { return static_cast<size_t>(b) * p.sequence + s; }
  int PackedHeads() const { return p.numHeads + 2 * p.numKvHeads; }
  const E* Query(int b, int s, int head) const {
    const size_t heads = p.key == nullptr ? PackedHeads() : p.numHeads;
    return static_cast<const E*>(p.query) + (TokenRow(b, s) * heads + head) * p.headSize;
  }
  const E* Key(int b, int s, int kvHead) const {
    if (p.key == nullptr) return Query(b, s, p.numHeads + kvHead);
    return static_cast<const E*>(p.key) + (TokenRow(b, s) * p.numKvHeads + kvHead) * p.headSize;
  }
  const E* Value(int b, int s, int kvHead) const {
    if (p.value == nullptr) return Query(b, s, p.numHeads + p.numKvHeads + kvHead);
    return static_cast<const E*>(p.value) + (TokenRow(b, s) * p.numKvHeads + kvHead) * p.headSize;
  }
  size_t HeadOffset(int b, int kvHead, int length) const {
    return (static_cast<size_t>(b) * p.numKvHeads + kvHead) * length * p.headSize;
  }
  // ONNX Runtime's position for new token s: past + s, or 1 for a padded token past the row's end.
  int Position(int s) const { return past + s < total ? past + s : 1; }
  // Keys row s attends to: [begin, end), causal and, with a window, its last localWindow + 1.
  int KeyEnd(int s) const { return std::min(past + s + 1, p.presentLength); }
  int KeyBegin(int s) const {
    const int end = KeyEnd(s);
    return p.localWindow > 0 && end > p.localWindow + 1 ? end - p.localWindow - 1 : 0;
  }
};

// RoPE as ONNX Runtime's RotaryEmbedding applies it inside GroupQueryAttention (halves, or
// interleaved pairs), on the first 2·rotaryHalf values; the rest pass through. Times `scale`.
template <typename E>
FF_INLINE void RotateRow(const Problem& p, const E* x, int position, float scale, float* out) {
  const int half = p.rotaryHalf;
  const int dim = 2 * half;
  const E* cos = static_cast<const E*>(p.cosCache) + static_cast<size_t>(position) * half;
  const E* sin = static_cast<const E*>(p.sinCache) + static_cast<size_t>(position) * half;
  for (int i = 0; i < dim; i++) {
    const bool isFirst = p.isInterleaved ? i % 2 == 0 : i < half;
    const int cacheAt = p.isInterleaved ? i / 2 : i % half;
    const int partner = p.isInterleaved ? (isFirst ? i + 1 : i - 1) : (i + half) % dim;
    const float rotated = Load(x[partner]) * Load(sin[cacheAt]);
    out[i] = (Load(x[i]) * Load(cos[cacheAt]) + (isFirst ? -rotated : rotated)) * scale;
  }
  for (int i = dim; i < p.headSize; i++) out[i] = Load(x[i]) * scale;
}

template <typename E>
FF_INLINE void LoadRow(const Problem& p, const E* x, int position, float scale, float* out) {
  if (p.rotaryHalf > 0) return RotateRow(p, x, position, scale, out);
  for (int i = 0; i < p.headSize; i++) out[i] = Load(x[i]) * scale;
}

template <typename E>
void WriteNewKvOf(const Problem& p, int b, int kvHead) {
  const Layout<E> at(p, b);
  const size_t rowBytes = sizeof(E) * p.headSize;
  E* presentKey = static_cast<E*>(p.presentKey) + at.HeadOffset(b, kvHead, p.presentLength);
  E* presentValue = static_cast<E*>(p.presentValue) + at.HeadOffset(b, kvHead, p.presentLength);
  if (!p.isSharedBuffer) {
    // A present apart from the past starts as ONNX Runtime leaves it: zeros, then the past's rows.
    std::memset(presentKey, 0, rowBytes * p.presentLength);
    std::memset(presentValue, 0, rowBytes * p.presentLength);
    const int numPast = std::min(at.past, p.pastLength);
    if (p.pastKey != nullptr && numPast > 0) {
      std::memcpy(presentKey, static_cast<const E*>(p.pastKey) + at.HeadOffset(b, kvHead, p.pastLength),
                  rowBytes * numPast);
      std::memcpy(presentValue, static_cast<const E*>(p.pastValue) + at.HeadOffset(b, kvHead, p.pastLength),
                  rowBytes * numPast);
    }
  }
  std::vector<float> rotated(p.headSize);
  for (int s = 0; s < p.sequence; s++) {
    const int row = at.past + s;
    if (row < 0 || row >= p.presentLength) continue;
    E* keyOut = presentKey + static_cast<size_t>(row) * p.headSize;
    LoadRow(p, at.Key(b, s, kvHead), at.Position(s), 1.0f, rotated.data());
    for (int i = 0; i < p.headSize; i++) Store(keyOut + i, rotated[i]);
    std::memcpy(presentValue + static_cast<size_t>(row) * p.headSize, at.Value(b, s, kvHead), rowBytes);
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
      for (int i = 0; i < 4; i++)
        if (i < count) acc[i] += LoadV(q + (r0 + i) * headSize + c) * k;
    }
    for (int i = 0; i < count; i++) scores[(r0 + i) * stride] = Hsum(acc[i]);
  }
}

// out rows (headSize apart) += probs[r·stride + j] · values[j] over the block's keys, G rows and
// C 16-lane chunks in registers at a time so each value row is read once per pass.
template <int G, int C>
FF_INLINE void WeighValues(const float* probs, int stride, int numRows, const float* values, int numKeys,
                           int headSize, float* out) {
  for (int c0 = 0; c0 < headSize; c0 += C * kLanes) {
    for (int r0 = 0; r0 < numRows; r0 += G) {
      V16 acc[G][C] = {};
      for (int j = 0; j < numKeys; j++) {
        const float* row = values + static_cast<size_t>(j) * headSize + c0;
        V16 v[C];
        for (int c = 0; c < C; c++) v[c] = LoadV(row + c * kLanes);
        for (int g = 0; g < G; g++) {
          if (r0 + g >= numRows) break;
          const float weight = probs[(r0 + g) * stride + j];
          for (int c = 0; c < C; c++) acc[g][c] += weight * v[c];
        }
      }
      for (int g = 0; g < G && r0 + g < numRows; g++)
        for (int c = 0; c < C; c++) {
          float* to = out + (r0 + g) * headSize + c0 + c * kLanes;
          StoreV(to, LoadV(to) + acc[g][c]);
        }
    }
  }
}

FF_INLINE void WeighValuesAny(const float* probs, int stride, int numRows, const float* values, int numKeys,
                              int headSize, float* out) {
  if (headSize % (4 * kLanes) == 0) return WeighValues<3, 4>(probs, stride, numRows, values, numKeys, headSize, out);
  if (headSize % (2 * kLanes) == 0) return WeighValues<4, 2>(probs, stride, numRows, values, numKeys, headSize, out);
  if (headSize % kLanes == 0) return WeighValues<6, 1>(probs, stride, numRows, values, numKeys, headSize, out);
  for (int r = 0; r < numRows; r++)
    for (int j = 0; j < numKeys; j++) {
      const float weight = probs[r * stride + j];
      for (int i = 0; i < headSize; i++) out[r * headSize + i] += weight * values[static_cast<size_t>(j) * headSize + i];
    }
}

// Softmax of scores[begin, end) in place (capped first; "smooth" adds a zero logit); zeros outside.
void SoftmaxRow(const Problem& p, float* scores, int numKeys, int begin, int end) {
  for (int j = 0; j < begin; j++) scores[j] = 0;
  for (int j = std::max(end, 0); j < numKeys; j++) scores[j] = 0;
  if (end <= begin) return;
  if (p.softcap > 0)
    for (int j = begin; j < end; j++) scores[j] = p.softcap * std::tanh(scores[j] / p.softcap);
  float max = scores[begin];
  for (int j = begin + 1; j < end; j++) max = std::max(max, scores[j]);
  if (p.isSmoothSoftmax) max = std::max(max, 0.0f);
  float sum = p.isSmoothSoftmax ? std::exp(-max) : 0.0f;
  for (int j = begin; j < end; j++) {
    scores[j] = std::exp(scores[j] - max);
    sum += scores[j];
  }
  const float inverse = 1.0f / sum;
  for (int j = begin; j < end; j++) scores[j] *= inverse;
}

constexpr int kRowsPerBlock = 32;
constexpr int kKeysPerTile = 64;

int TokensPerBlock(const Problem& p) { return std::max(1, kRowsPerBlock / (p.numHeads / p.numKvHeads)); }

// Per-thread scratch, kept between calls (ONNX Runtime's pool threads live as long as the session).
struct Scratch {
  std::vector<float> query, scores, out, keys, values;
};
Scratch& ThreadScratch() {
  thread_local Scratch scratch;
  return scratch;
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

template <typename E>
FF_INLINE void AttendBlockOf(const Problem& p, int b, int kvHead, int block) {
  const Layout<E> at(p, b);
  const int group = p.numHeads / p.numKvHeads;
  const int headSize = p.headSize;
  const int first = block * TokensPerBlock(p);
  const int last = std::min(p.sequence, first + TokensPerBlock(p));
  if (first >= last) return;
  const int numRows = (last - first) * group;  // row r: token first + r / group, head kvHead·group + r % group
  const int keyBegin = at.KeyBegin(first);
  const int numKeys = std::max(0, at.KeyEnd(last - 1) - keyBegin);
  Scratch& scratch = ThreadScratch();
  scratch.query.resize(static_cast<size_t>(numRows) * headSize);
  scratch.scores.resize(static_cast<size_t>(numRows) * std::max(numKeys, 1));
  scratch.out.assign(static_cast<size_t>(numRows) * headSize, 0.0f);
  for (int r = 0; r < numRows; r++) {
    const int s = first + r / group;
    LoadRow(p, at.Query(b, s, kvHead * group + r % group), at.Position(s), p.scale,
            scratch.query.data() + static_cast<size_t>(r) * headSize);
  }
  const E* keys = static_cast<const E*>(p.presentKey) + at.HeadOffset(b, kvHead, p.presentLength);
  const E* values = static_cast<const E*>(p.presentValue) + at.HeadOffset(b, kvHead, p.presentLength);
  for (int j0 = 0; j0 < numKeys; j0 += kKeysPerTile) {
    const int count = std::min(kKeysPerTile, numKeys - j0);
    const float* tile = RowsAsFloat(keys + static_cast<size_t>(keyBegin + j0) * headSize, count, headSize, &scratch.keys);
    for (int j = 0; j < count; j++)
      ScoreKey(scratch.query.data(), numRows, headSize, tile + static_cast<size_t>(j) * headSize,
               scratch.scores.data() + j0 + j, numKeys);
  }
  for (int r = 0; r < numRows; r++) {
    const int s = first + r / group;
    SoftmaxRow(p, scratch.scores.data() + static_cast<size_t>(r) * numKeys, numKeys, at.KeyBegin(s) - keyBegin,
               at.KeyEnd(s) - keyBegin);
  }
  for (int j0 = 0; j0 < numKeys; j0 += kKeysPerTile) {
    const int count = std::min(kKeysPerTile, numKeys - j0);
    const float* tile =
        RowsAsFloat(values + static_cast<size_t>(keyBegin + j0) * headSize, count, headSize, &scratch.values);
    WeighValuesAny(scratch.scores.data() + j0, numKeys, numRows, tile, count, headSize, scratch.out.data());
  }
  for (int r = 0; r < numRows; r++) {
    const int s = first + r / group;
    E* to = static_cast<E*>(p.output) + (at.TokenRow(b, s) * p.numHeads + kvHead * group + r % group) * headSize;
    for (int i = 0; i < headSize; i++) Store(to + i, scratch.out[static_cast<size_t>(r) * headSize + i]);
  }
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

}  // namespace attention
}  // namespace ffhm
