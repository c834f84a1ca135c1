// Grouped-query attention over a K/V buffer written in place: the arithmetic of ONNX Runtime's
// com.microsoft GroupQueryAttention contrib operator (its documented inputs, attributes and
// semantics), computed so that each K/V head's rows are read once for all the query heads it
// serves. ONNX Runtime's own CPU kernel runs one GEMM per query head, reading every K/V head's
// past once per query head and packing it each time; at 2,000 tokens of past that is most of a
// decode step. Nothing here calls ONNX Runtime: grouped_attention_op.cc feeds it tensors.
#pragma once

#include <cstddef>
#include <cstdint>

namespace ffhm {
namespace attention {

// The element type of query, key, value, the K/V buffers, the rotary caches and the output.
enum class Element { kFloat, kHalf };

// One call's tensors (BSNH query/key/value, BNSH past and present) and shape. Pointers to the
// contrib op's inputs are read-only; presentKey/presentValue may be pastKey/pastValue themselves
// (the bound run path's K/V in place), and the new tokens' rows are written there.
struct Problem {
  Element element = Element::kFloat;
  int batch = 0;
  int sequence = 0;  // new tokens per row (S)
  int numHeads = 0;
  int numKvHeads = 0;
  int headSize = 0;
  int pastLength = 0;     // rows in the past buffer (0 without one)
  int presentLength = 0;  // rows in the present buffer: max(total_sequence_length, pastLength)
  int rotaryHalf = 0;     // columns of the cos/sin caches; 0 = no rotation
  bool isInterleaved = false;
  bool isFirstPrompt = false;  // S == total_sequence_length: positions start at 0
  bool isSharedBuffer = false;
  bool isSmoothSoftmax = false;
  float scale = 0;    // applied to q·k before the cap; already 1/sqrt(headSize) when the attribute was 0
  float softcap = 0;  // 0 = none
  int localWindow = -1;  // > 0: a row sees its last localWindow keys, its own included
  const void* query = nullptr;
  const void* key = nullptr;  // null when query holds packed q, k and v
  const void* value = nullptr;
  const void* pastKey = nullptr;
  const void* pastValue = nullptr;
  void* presentKey = nullptr;
  void* presentValue = nullptr;
  const int32_t* seqlensK = nullptr;  // per row: total tokens minus one
  const void* cosCache = nullptr;
  const void* sinCache = nullptr;
  void* output = nullptr;
  // A decode step split over its keys (NumKeySplits > 1): per (row, K/V head, split), per query
  // row, [max, sum, weighted V] floats, headSize + 2 each; null otherwise.
  int numKeySplits = 1;
  float* partials = nullptr;
};

// Writes (b, kvHead)'s new K rows (rotated) and V rows into present, after copying the past's
// rows there when present is its own buffer. Runs before any block of that head attends.
void WriteNewKv(const Problem& problem, int b, int kvHead);

// How many query blocks AttendBlock splits one (b, kvHead) into: work items for the pool.
int NumQueryBlocks(const Problem& problem);

// Attention for one block of new tokens of row b, for every query head kvHead serves: rotates
// and scales q, scores it against present's K rows once per key row, softmax (cap, window,
// smooth), then the weighted sum of V rows, written to output.
void AttendBlock(const Problem& problem, int b, int kvHead, int block);

// How many key splits a decode step (sequence 1) gets: 512 keys or more each, about two work
// items per pool thread (numThreads), at most 16; 1 for a prompt.
int NumKeySplits(const Problem& problem, int numThreads);

// One split of (b, kvHead)'s keys for a decode step: its partial results in problem.partials.
void AttendSplit(const Problem& problem, int b, int kvHead, int split);

// (b, kvHead)'s output rows from its splits' partials.
void CombineSplits(const Problem& problem, int b, int kvHead);

}  // namespace attention
}  // namespace ffhm
