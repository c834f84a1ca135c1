// Our own minimal declarations of the part of ONNX Runtime's C API the bound run path uses.
// ONNX Runtime's header is not included (its code stays out of this repository): OrtApi is a
// table of function pointers in a fixed, append-only order, so each function is addressed by
// its position in that table (kIndex below) and called through a typedef of its documented
// signature. Opaque handles are incomplete structs; nothing here depends on their layout.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

namespace ffhm {
namespace ort {

struct Status;
struct Env;
struct SessionOptions;
struct Session;
struct MemoryInfo;
struct Value;
struct IoBinding;
struct RunOptions;
struct Allocator;
struct CustomOpDomain;
struct KernelInfo;
struct KernelContext;
struct TensorTypeAndShapeInfo;

// The API version requested from GetApi: ONNX Runtime 1.30's (its ORT_API_VERSION).
constexpr uint32_t kApiVersion = 30;

// ONNXTensorElementDataType values used here.
enum ElementType : int { kFloat = 1, kUint8 = 2, kInt32 = 6, kInt64 = 7, kBool = 9, kFloat16 = 10 };

// Positions in the OrtApi table (onnxruntime_c_api.h, struct OrtApi, counted from 0).
enum Index : size_t {
  kCreateStatus = 0,
  kGetErrorMessage = 2,
  kCreateEnv = 3,
  kCreateSession = 7,
  kCreateSessionFromArray = 8,
  kCreateSessionOptions = 10,
  kSetOptimizedModelFilePath = 11,
  kEnableProfiling = 14,
  kSetSessionLogSeverityLevel = 22,
  kSetSessionGraphOptimizationLevel = 23,
  kSetIntraOpNumThreads = 24,
  kSetInterOpNumThreads = 25,
  kCreateCustomOpDomain = 26,
  kCustomOpDomainAdd = 27,
  kAddCustomOpDomain = 28,
  kSessionGetInputCount = 30,
  kSessionGetOutputCount = 31,
  kSessionGetInputName = 36,
  kSessionGetOutputName = 37,
  kCreateTensorWithDataAsOrtValue = 49,
  kGetTensorMutableData = 51,
  kGetTensorElementType = 60,
  kGetDimensionsCount = 61,
  kGetDimensions = 62,
  kGetTensorTypeAndShape = 65,
  kCreateCpuMemoryInfo = 69,
  kAllocatorFree = 76,
  kGetAllocatorWithDefaultOptions = 78,
  kKernelInfoGetAttributeFloat = 85,
  kKernelInfoGetAttributeInt64 = 86,
  kKernelContextGetInputCount = 88,
  kKernelContextGetOutputCount = 89,
  kKernelContextGetInput = 90,
  kKernelContextGetOutput = 91,
  kReleaseEnv = 92,
  kReleaseStatus = 93,
  kReleaseMemoryInfo = 94,
  kReleaseSession = 95,
  kReleaseValue = 96,
  kReleaseTensorTypeAndShapeInfo = 99,
  kReleaseSessionOptions = 100,
  kSessionEndProfiling = 110,
  kAddSessionConfigEntry = 130,
  kRunWithBinding = 133,
  kCreateIoBinding = 134,
  kReleaseIoBinding = 135,
  kBindInput = 136,
  kBindOutput = 137,
  kGetBuildInfoString = 254,
  kKernelContextParallelFor = 274,
};

// Signatures (ORT_API_CALL is empty off Windows, and this addon is POSIX-only).
using GetErrorMessageFn = const char* (*)(const Status*);
using CreateEnvFn = Status* (*)(int logLevel, const char* logId, Env** out);
using CreateSessionFn = Status* (*)(const Env*, const char* path, const SessionOptions*, Session** out);
using CreateSessionFromArrayFn = Status* (*)(const Env*, const void* data, size_t length, const SessionOptions*,
                                             Session** out);
using CreateSessionOptionsFn = Status* (*)(SessionOptions** out);
using SessionOptionsPathFn = Status* (*)(SessionOptions*, const char* path);
using SessionOptionsIntFn = Status* (*)(SessionOptions*, int value);
using SessionCountFn = Status* (*)(const Session*, size_t* out);
using SessionNameFn = Status* (*)(const Session*, size_t index, Allocator*, char** out);
using CreateTensorWithDataFn = Status* (*)(const MemoryInfo*, void* data, size_t bytes, const int64_t* shape,
                                           size_t rank, int elementType, Value** out);
using CreateCpuMemoryInfoFn = Status* (*)(int allocatorType, int memType, MemoryInfo** out);
using AllocatorFreeFn = Status* (*)(Allocator*, void* p);
using GetDefaultAllocatorFn = Status* (*)(Allocator** out);
using SessionEndProfilingFn = Status* (*)(Session*, Allocator*, char** out);
using AddSessionConfigEntryFn = Status* (*)(SessionOptions*, const char* key, const char* value);
using RunWithBindingFn = Status* (*)(Session*, const RunOptions*, const IoBinding*);
using CreateIoBindingFn = Status* (*)(Session*, IoBinding** out);
using BindFn = Status* (*)(IoBinding*, const char* name, const Value*);
using CreateStatusFn = Status* (*)(int code, const char* message);
using CreateCustomOpDomainFn = Status* (*)(const char* domain, CustomOpDomain** out);
using CustomOpDomainAddFn = Status* (*)(CustomOpDomain*, const void* op);
using AddCustomOpDomainFn = Status* (*)(SessionOptions*, CustomOpDomain*);
using GetTensorMutableDataFn = Status* (*)(Value*, void** out);
using GetTensorTypeAndShapeFn = Status* (*)(const Value*, TensorTypeAndShapeInfo** out);
using GetTensorElementTypeFn = Status* (*)(const TensorTypeAndShapeInfo*, int* out);
using GetDimensionsCountFn = Status* (*)(const TensorTypeAndShapeInfo*, size_t* out);
using GetDimensionsFn = Status* (*)(const TensorTypeAndShapeInfo*, int64_t* out, size_t count);
using KernelInfoGetFloatFn = Status* (*)(const KernelInfo*, const char* name, float* out);
using KernelInfoGetInt64Fn = Status* (*)(const KernelInfo*, const char* name, int64_t* out);
using KernelContextCountFn = Status* (*)(const KernelContext*, size_t* out);
using KernelContextGetInputFn = Status* (*)(const KernelContext*, size_t index, const Value** out);
using KernelContextGetOutputFn = Status* (*)(KernelContext*, size_t index, const int64_t* dims, size_t count,
                                             Value** out);
using GetBuildInfoStringFn = const char* (*)();
using KernelContextParallelForFn = Status* (*)(const KernelContext*, void (*fn)(void*, size_t), size_t total,
                                               size_t numBatch, void* userData);
template <typename T>
using ReleaseFn = void (*)(T*);

// The loaded library's API table, or why there is none.
struct Api {
  const void* const* table = nullptr;
  Env* env = nullptr;
  std::string version;
  std::string reason;

  template <typename Fn>
  Fn At(Index index) const {
    return reinterpret_cast<Fn>(const_cast<void*>(table[index]));
  }
  // "" when status is null (success), else ONNX Runtime's message; releases the status.
  std::string Take(Status* status) const;
  // Calls the status-returning function at `index`: "" on success, else ONNX Runtime's message.
  template <typename Fn, typename... Args>
  std::string Call(Index index, Args... args) const {
    return Take(At<Fn>(index)(args...));
  }
};

// dlopens libraryPath once per process (a second, different path is refused with a reason),
// asks for kApiVersion and creates the process's one OrtEnv. Null table: `reason` says why.
const Api& LoadApi(const std::string& libraryPath);

}  // namespace ort
}  // namespace ffhm
