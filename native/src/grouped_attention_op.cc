#include "grouped_attention_op.h"

#include <algorithm>
#include <climits>
#include <cmath>
#include <cstring>
#include <mutex>
#include <thread>
#include <vector>

#include "grouped_attention.h"

namespace ffhm {
namespace ort {
namespace {

struct ShapeInferContext;

// OrtCustomOp as onnxruntime_c_api.h declares it (version, then 25 callbacks in this order); ONNX
// Runtime reads every field up to the version we state, so each is filled.
struct CustomOp {
  uint32_t version;
  void* (*CreateKernel)(const CustomOp*, const void* api, const KernelInfo*);
  const char* (*GetName)(const CustomOp*);
  const char* (*GetExecutionProviderType)(const CustomOp*);
  int (*GetInputType)(const CustomOp*, size_t);
  size_t (*GetInputTypeCount)(const CustomOp*);
  int (*GetOutputType)(const CustomOp*, size_t);
  size_t (*GetOutputTypeCount)(const CustomOp*);
  void (*KernelCompute)(void* kernel, KernelContext*);
  void (*KernelDestroy)(void* kernel);
  int (*GetInputCharacteristic)(const CustomOp*, size_t);
  int (*GetOutputCharacteristic)(const CustomOp*, size_t);
  int (*GetInputMemoryType)(const CustomOp*, size_t);
  int (*GetVariadicInputMinArity)(const CustomOp*);
  int (*GetVariadicInputHomogeneity)(const CustomOp*);
  int (*GetVariadicOutputMinArity)(const CustomOp*);
  int (*GetVariadicOutputHomogeneity)(const CustomOp*);
  Status* (*CreateKernelV2)(const CustomOp*, const void* api, const KernelInfo*, void** kernel);
  Status* (*KernelComputeV2)(void* kernel, KernelContext*);
  Status* (*InferOutputShapeFn)(const CustomOp*, ShapeInferContext*);
  int (*GetStartVersion)(const CustomOp*);
  int (*GetEndVersion)(const CustomOp*);
  size_t (*GetMayInplace)(int** inputs, int** outputs);
  void (*ReleaseMayInplace)(int* inputs, int* outputs);
  size_t (*GetAliasMap)(int** inputs, int** outputs);
  void (*ReleaseAliasMap)(int* inputs, int* outputs);
};

constexpr int kRequired = 0;
constexpr int kOptional = 1;
constexpr int kErrorInvalidArgument = 2;

// GroupQueryAttention's inputs, in the contrib op's order.
enum Input : size_t {
  kQuery, kKey, kValue, kPastKey, kPastValue, kSeqlensK, kTotalSequenceLength, kCosCache, kSinCache,
  kPositionIds, kAttentionBias, kHeadSink, kNumInputs
};

// Attributes read once per node.
struct Kernel {
  int elementType = kFloat;  // kFloat or kFloat16: the op registered for it built this kernel
  int numHeads = 0;
  int numKvHeads = 0;
  float scale = 0;
  float softcap = 0;
  int localWindow = -1;
  bool hasRotary = false;
  bool isInterleaved = false;
  bool isSmoothSoftmax = false;
  // The machine's hardware threads: the session's pool size is not visible to a custom kernel,
  // so decode splits are sized against what the pool can be at most.
  int numThreads = 1;
};

const Api* gApi = nullptr;  // the process's one API table (LoadApi's), set before any op is added

template <typename... Args>
Status* Fail(Args... parts) {
  std::string message = "GroupQueryAttention (First Frame's grouped kernel): ";
  ((message += parts), ...);
  return gApi->At<CreateStatusFn>(kCreateStatus)(kErrorInvalidArgument, message.c_str());
}

int64_t IntAttribute(const KernelInfo* info, const char* name, int64_t fallback) {
  int64_t value = fallback;
  if (!gApi->Take(gApi->At<KernelInfoGetInt64Fn>(kKernelInfoGetAttributeInt64)(info, name, &value)).empty())
    return fallback;
  return value;
}

float FloatAttribute(const KernelInfo* info, const char* name, float fallback) {
  float value = fallback;
  if (!gApi->Take(gApi->At<KernelInfoGetFloatFn>(kKernelInfoGetAttributeFloat)(info, name, &value)).empty())
    return fallback;
  return value;
}

// One input or output tensor: its element type, dims and data (null data: the input is absent).
struct Tensor {
  int elementType = 0;
  std::vector<int64_t> dims;
  void* data = nullptr;
};

std::string Describe(const Value* value, Tensor* out) {
  const Api& api = *gApi;
  TensorTypeAndShapeInfo* info = nullptr;
  std::string error = api.Call<GetTensorTypeAndShapeFn>(kGetTensorTypeAndShape, value, &info);
  size_t rank = 0;
  if (error.empty()) error = api.Call<GetTensorElementTypeFn>(kGetTensorElementType, info, &out->elementType);
  if (error.empty()) error = api.Call<GetDimensionsCountFn>(kGetDimensionsCount, info, &rank);
  if (error.empty()) {
    out->dims.resize(rank);
    error = api.Call<GetDimensionsFn>(kGetDimensions, info, out->dims.data(), rank);
  }
  if (info != nullptr) api.At<ReleaseFn<TensorTypeAndShapeInfo>>(kReleaseTensorTypeAndShapeInfo)(info);
  if (error.empty())
    error = api.Call<GetTensorMutableDataFn>(kGetTensorMutableData, const_cast<Value*>(value), &out->data);
  return error;
}

// Reads every input present (absent optional inputs stay empty).
std::string ReadInputs(KernelContext* context, std::vector<Tensor>* inputs) {
  size_t count = 0;
  std::string error = gApi->Call<KernelContextCountFn>(kKernelContextGetInputCount, context, &count);
  inputs->assign(kNumInputs, Tensor{});
  for (size_t i = 0; i < std::min<size_t>(count, kNumInputs) && error.empty(); i++) {
    const Value* value = nullptr;
    error = gApi->Call<KernelContextGetInputFn>(kKernelContextGetInput, context, i, &value);
    if (error.empty() && value != nullptr) error = Describe(value, &(*inputs)[i]);
  }
  return error;
}

// An input's dims as text, for errors.
std::string Dims(const std::vector<int64_t>& dims) {
  std::string out = "[";
  for (size_t i = 0; i < dims.size(); i++) out += (i ? ", " : "") + std::to_string(dims[i]);
  return out + "]";
}

// The shape of one call, checked as ONNX Runtime's own kernel checks it.
std::string ShapeOf(const Kernel& kernel, const std::vector<Tensor>& in, attention::Problem* p) {
  const Tensor& query = in[kQuery];
  if (query.dims.size() != 3) return "query must be [batch, sequence, hidden], got " + Dims(query.dims);
  p->batch = static_cast<int>(query.dims[0]);
  p->sequence = static_cast<int>(query.dims[1]);
  p->numHeads = kernel.numHeads;
  p->numKvHeads = kernel.numKvHeads;
  const bool isPacked = in[kKey].data == nullptr;
  const int64_t heads = isPacked ? kernel.numHeads + 2 * kernel.numKvHeads : kernel.numHeads;
  if (query.dims[2] % heads != 0) return "query's hidden size " + std::to_string(query.dims[2]) + " is not heads × head size";
  p->headSize = static_cast<int>(query.dims[2] / heads);
  if (p->batch <= 0 || p->sequence <= 0 || p->headSize <= 0) return "query is empty: " + Dims(query.dims);
  const std::vector<int64_t> kvRows{query.dims[0], query.dims[1], int64_t{kernel.numKvHeads} * p->headSize};
  if (!isPacked && (in[kKey].dims != kvRows || in[kValue].dims != kvRows))
    return "key and value must be " + Dims(kvRows) + ", got " + Dims(in[kKey].dims) + " and " + Dims(in[kValue].dims);
  if ((in[kPastKey].data == nullptr) != (in[kPastValue].data == nullptr))
    return "past_key and past_value must be both present or both absent";
  if (in[kPastKey].data != nullptr) {
    const Tensor& past = in[kPastKey];
    if (past.dims.size() != 4 || past.dims[0] != p->batch || past.dims[1] != kernel.numKvHeads ||
        past.dims[3] != p->headSize || in[kPastValue].dims != past.dims)
      return "past_key/past_value must be [batch, kv heads, length, head size], got " + Dims(past.dims);
    p->pastLength = static_cast<int>(past.dims[2]);
  }
  return "";
}

// Lengths, positions and the rotary caches: every index the kernel will touch is in bounds.
std::string LengthsOf(const Kernel& kernel, const std::vector<Tensor>& in, attention::Problem* p) {
  const Tensor& seqlens = in[kSeqlensK];
  const Tensor& total = in[kTotalSequenceLength];
  if (seqlens.elementType != kInt32 || seqlens.dims.size() != 1 || seqlens.dims[0] != p->batch)
    return "seqlens_k must be int32 [batch]";
  if (total.elementType != kInt32 || total.data == nullptr) return "total_sequence_length must be an int32 scalar";
  const int totalLength = *static_cast<const int32_t*>(total.data);
  p->presentLength = std::max(totalLength, p->pastLength);
  const bool isSubsequentPrompt = p->sequence > 1 && p->sequence != totalLength;
  if (isSubsequentPrompt && p->batch != 1) return "batch must be 1 when a prompt continues a past";
  p->isFirstPrompt = !isSubsequentPrompt && p->sequence == totalLength;
  if (!isSubsequentPrompt && !p->isFirstPrompt && p->sequence != 1) return "sequence must be 1 after the prompt";
  p->seqlensK = static_cast<const int32_t*>(seqlens.data);
  int maxPosition = 1;
  for (int b = 0; b < p->batch; b++) {
    const int rowTotal = p->seqlensK[b] + 1;
    if (rowTotal < 1 || rowTotal > p->presentLength || (!p->isFirstPrompt && rowTotal < p->sequence))
      return "seqlens_k[" + std::to_string(b) + "] = " + std::to_string(p->seqlensK[b]) + " is out of range";
    maxPosition = std::max(maxPosition, rowTotal);
  }
  if (!kernel.hasRotary) return "";
  const Tensor& cos = in[kCosCache];
  if (cos.data == nullptr || in[kSinCache].dims != cos.dims || cos.dims.size() != 2)
    return "do_rotary needs cos_cache and sin_cache of one shape [positions, rotary dim / 2]";
  if (cos.dims[0] < maxPosition || cos.dims[1] * 2 > p->headSize)
    return "the rotary caches " + Dims(cos.dims) + " are too small for this call";
  p->rotaryHalf = static_cast<int>(cos.dims[1]);
  return "";
}

std::string ProblemOf(const Kernel& kernel, const std::vector<Tensor>& in, attention::Problem* p) {
  if (in[kPositionIds].data != nullptr || in[kAttentionBias].data != nullptr || in[kHeadSink].data != nullptr)
    return "position_ids, attention_bias and head_sink are not supported";
  const int element = kernel.elementType;
  for (Input i : {kQuery, kKey, kValue, kPastKey, kPastValue, kCosCache, kSinCache})
    if (in[i].data != nullptr && in[i].elementType != element) return "inputs must share one element type";
  std::string error = ShapeOf(kernel, in, p);
  if (error.empty()) error = LengthsOf(kernel, in, p);
  if (!error.empty()) return error;
  p->element = element == kFloat16 ? attention::Element::kHalf : attention::Element::kFloat;
  p->scale = kernel.scale == 0.0f ? 1.0f / std::sqrt(static_cast<float>(p->headSize)) : kernel.scale;
  p->softcap = kernel.softcap;
  p->localWindow = kernel.localWindow;
  p->isInterleaved = kernel.isInterleaved;
  p->isSmoothSoftmax = kernel.isSmoothSoftmax;
  p->query = in[kQuery].data;
  p->key = in[kKey].data;
  p->value = in[kValue].data;
  p->pastKey = in[kPastKey].data;
  p->pastValue = in[kPastValue].data;
  p->cosCache = in[kCosCache].data;
  p->sinCache = in[kSinCache].data;
  return "";
}

// Asks ONNX Runtime for the outputs (a bound present comes back as the caller's own memory).
std::string BindOutputs(KernelContext* context, attention::Problem* p) {
  const std::vector<int64_t> outputDims{p->batch, p->sequence, int64_t{p->numHeads} * p->headSize};
  const std::vector<int64_t> presentDims{p->batch, p->numKvHeads, p->presentLength, p->headSize};
  void* data[3] = {};
  for (size_t i = 0; i < 3; i++) {
    const std::vector<int64_t>& dims = i == 0 ? outputDims : presentDims;
    Value* value = nullptr;
    std::string error =
        gApi->Call<KernelContextGetOutputFn>(kKernelContextGetOutput, context, i, dims.data(), dims.size(), &value);
    if (error.empty() && value == nullptr) error = "present_key and present_value are required";
    if (error.empty()) error = gApi->Call<GetTensorMutableDataFn>(kGetTensorMutableData, value, &data[i]);
    if (!error.empty()) return error;
  }
  p->output = data[0];
  p->presentKey = data[1];
  p->presentValue = data[2];
  p->isSharedBuffer = p->presentKey == p->pastKey && p->presentValue == p->pastValue;
  if (!p->isSharedBuffer && (p->presentKey == p->pastKey || p->presentValue == p->pastValue))
    return "present_key and present_value must both share their past's memory, or neither";
  return "";
}

// Runs fn(0..total-1) on the session's intra-op pool (serially when the pool refuses).
void ParallelFor(KernelContext* context, size_t total, void (*fn)(void*, size_t), void* job) {
  if (total == 0) return;
  const std::string error =
      gApi->Call<KernelContextParallelForFn>(kKernelContextParallelFor, context, fn, total, size_t{0}, job);
  if (!error.empty())
    for (size_t i = 0; i < total; i++) fn(job, i);
}

// One phase's work: a call's problem, and how many items each (row, K/V head) has in it.
struct Job {
  const attention::Problem* problem;
  int numPerHead;
};

// Item index → (row, K/V head[, its part]) for one of the kernel's per-head phases.
template <void (*Fn)(const attention::Problem&, int, int)>
void HeadItem(void* data, size_t index) {
  const auto* job = static_cast<const Job*>(data);
  const int kvHeads = job->problem->numKvHeads;
  Fn(*job->problem, static_cast<int>(index) / kvHeads, static_cast<int>(index) % kvHeads);
}

template <void (*Fn)(const attention::Problem&, int, int, int)>
void HeadPartItem(void* data, size_t index) {
  const auto* job = static_cast<const Job*>(data);
  const int kvHeads = job->problem->numKvHeads;
  const int head = static_cast<int>(index) / job->numPerHead;
  Fn(*job->problem, head / kvHeads, head % kvHeads, static_cast<int>(index) % job->numPerHead);
}

Status* Compute(void* kernelData, KernelContext* context) {
  const auto* kernel = static_cast<const Kernel*>(kernelData);
  std::vector<Tensor> inputs;
  std::string error = ReadInputs(context, &inputs);
  if (!error.empty()) return Fail(error);
  attention::Problem problem;
  error = ProblemOf(*kernel, inputs, &problem);
  if (error.empty()) error = BindOutputs(context, &problem);
  if (!error.empty()) return Fail(error);
  const size_t numHeads = static_cast<size_t>(problem.batch) * problem.numKvHeads;
  Job job{&problem, 1};
  ParallelFor(context, numHeads, HeadItem<attention::WriteNewKv>, &job);
  problem.numKeySplits = attention::NumKeySplits(problem, kernel->numThreads);
  if (problem.numKeySplits == 1) {
    job.numPerHead = attention::NumQueryBlocks(problem);
    ParallelFor(context, numHeads * job.numPerHead, HeadPartItem<attention::AttendBlock>, &job);
    return nullptr;
  }
  std::vector<float> partials(numHeads * problem.numKeySplits * (problem.numHeads / problem.numKvHeads) *
                              (problem.headSize + 2));
  problem.partials = partials.data();
  job.numPerHead = problem.numKeySplits;
  ParallelFor(context, numHeads * job.numPerHead, HeadPartItem<attention::AttendSplit>, &job);
  ParallelFor(context, numHeads, HeadItem<attention::CombineSplits>, &job);
  return nullptr;
}

// A node's kernel: its attributes, read once, for tensors of `element`.
Status* NewKernel(const KernelInfo* info, int element, void** out) {
  auto* kernel = new Kernel();
  kernel->elementType = element;
  kernel->numHeads = static_cast<int>(IntAttribute(info, "num_heads", 0));
  kernel->numKvHeads = static_cast<int>(IntAttribute(info, "kv_num_heads", 0));
  kernel->scale = FloatAttribute(info, "scale", 0.0f);
  kernel->softcap = FloatAttribute(info, "softcap", 0.0f);
  kernel->localWindow = static_cast<int>(IntAttribute(info, "local_window_size", -1));
  kernel->hasRotary = IntAttribute(info, "do_rotary", 0) == 1;
  kernel->isInterleaved = IntAttribute(info, "rotary_interleaved", 0) == 1;
  kernel->isSmoothSoftmax = IntAttribute(info, "smooth_softmax", 0) == 1;
  kernel->numThreads = static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
  if (kernel->numHeads <= 0 || kernel->numKvHeads <= 0 || kernel->numHeads % kernel->numKvHeads != 0) {
    delete kernel;
    return Fail("num_heads must be a positive multiple of kv_num_heads");
  }
  *out = kernel;
  return nullptr;
}

// The schema ONNX Runtime builds from these: T for tensors, int32 lengths, int64 positions.
template <int kElement>
struct Op {
  static const char* Name(const CustomOp*) { return "GroupQueryAttention"; }
  static const char* Provider(const CustomOp*) { return nullptr; }  // the CPU provider
  static int InputType(const CustomOp*, size_t index) {
    if (index == kSeqlensK || index == kTotalSequenceLength) return kInt32;
    return index == kPositionIds ? kInt64 : kElement;
  }
  static size_t InputCount(const CustomOp*) { return kNumInputs; }
  static int OutputType(const CustomOp*, size_t) { return kElement; }
  static size_t OutputCount(const CustomOp*) { return 3; }
  static int InputCharacteristic(const CustomOp*, size_t index) {
    const bool isRequired = index == kQuery || index == kSeqlensK || index == kTotalSequenceLength;
    return isRequired ? kRequired : kOptional;
  }
  static int OutputCharacteristic(const CustomOp*, size_t index) { return index == 0 ? kRequired : kOptional; }
  static int MemoryType(const CustomOp*, size_t) { return 0; }  // OrtMemTypeDefault
  static int One(const CustomOp*) { return 1; }
  static int Zero(const CustomOp*) { return 0; }
  static int EndVersion(const CustomOp*) { return INT_MAX; }
  static Status* Create(const CustomOp*, const void*, const KernelInfo* info, void** out) {
    return NewKernel(info, kElement, out);
  }
  static void* CreateV1(const CustomOp* op, const void* api, const KernelInfo* info) {
    void* kernel = nullptr;
    return gApi->Take(Create(op, api, info, &kernel)).empty() ? kernel : nullptr;
  }
  static void ComputeV1(void* kernel, KernelContext* context) { gApi->Take(Compute(kernel, context)); }
  static void Destroy(void* kernel) { delete static_cast<Kernel*>(kernel); }
  static size_t NoPairs(int** inputs, int** outputs) {
    *inputs = nullptr;
    *outputs = nullptr;
    return 0;
  }
  static void ReleasePairs(int*, int*) {}

  static CustomOp Make() {
    CustomOp op{};
    op.version = kApiVersion;
    op.CreateKernel = CreateV1;
    op.GetName = Name;
    op.GetExecutionProviderType = Provider;
    op.GetInputType = InputType;
    op.GetInputTypeCount = InputCount;
    op.GetOutputType = OutputType;
    op.GetOutputTypeCount = OutputCount;
    op.KernelCompute = ComputeV1;
    op.KernelDestroy = Destroy;
    op.GetInputCharacteristic = InputCharacteristic;
    op.GetOutputCharacteristic = OutputCharacteristic;
    op.GetInputMemoryType = MemoryType;
    op.GetVariadicInputMinArity = One;
    op.GetVariadicInputHomogeneity = Zero;
    op.GetVariadicOutputMinArity = One;
    op.GetVariadicOutputHomogeneity = Zero;
    op.CreateKernelV2 = Create;
    op.KernelComputeV2 = Compute;
    op.InferOutputShapeFn = nullptr;  // ONNX Runtime's own schema inference is not needed here
    op.GetStartVersion = One;
    op.GetEndVersion = EndVersion;
    op.GetMayInplace = NoPairs;
    op.ReleaseMayInplace = ReleasePairs;
    op.GetAliasMap = NoPairs;
    op.ReleaseAliasMap = ReleasePairs;
    return op;
  }
};

CustomOp gFloatOp = Op<kFloat>::Make();
CustomOp gHalfOp = Op<kFloat16>::Make();

std::mutex gMutex;
CustomOpDomain* gDomain = nullptr;
std::string gDomainError;

// The table positions this file adds are checked against one function whose answer is known.
bool IsTableAsExpected(const Api& api) {
  const char* info = api.At<GetBuildInfoStringFn>(kGetBuildInfoString)();
  return info != nullptr && std::strncmp(info, "ORT Build Info", 14) == 0;
}

void BuildDomain(const Api& api) {
  if (!IsTableAsExpected(api)) {
    gDomainError = "ONNX Runtime " + api.version + "'s API table is not laid out as expected";
    return;
  }
  gDomainError = api.Call<CreateCustomOpDomainFn>(kCreateCustomOpDomain, "com.microsoft", &gDomain);
  if (gDomainError.empty()) gDomainError = api.Call<CustomOpDomainAddFn>(kCustomOpDomainAdd, gDomain, &gFloatOp);
  if (gDomainError.empty()) gDomainError = api.Call<CustomOpDomainAddFn>(kCustomOpDomainAdd, gDomain, &gHalfOp);
  if (!gDomainError.empty()) gDomain = nullptr;
}

}  // namespace

std::string AddGroupedAttention(const Api& api, SessionOptions* options) {
  {
    std::lock_guard<std::mutex> lock(gMutex);
    if (gApi == nullptr) {
      gApi = &api;
      BuildDomain(api);
    }
    if (gDomain == nullptr) return gDomainError;
  }
  return api.Call<AddCustomOpDomainFn>(kAddCustomOpDomain, options, gDomain);
}

}  // namespace ort
}  // namespace ffhm
