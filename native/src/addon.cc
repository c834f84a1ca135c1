// Module entry: registers the functions the TypeScript loader expects (see
// src-main/runtime/host-memory/native-addon.ts for their types).
#include <napi.h>

#include <string>

#include "advice.h"
#include "cuda_register.h"
#include "heap_trim.h"
#include "host_block.h"
#include "memlock.h"
#include "native_buffer.h"
#include "ort_session.h"
#include "read_file.h"
#include "residency.h"

namespace ffhm {
namespace {

bool BoolOption(const Napi::Value& options, const char* key) {
  return options.IsObject() && options.As<Napi::Object>().Get(key).ToBoolean().Value();
}

std::string StringOption(const Napi::Value& options, const char* key, const char* fallback) {
  if (!options.IsObject()) return fallback;
  Napi::Value value = options.As<Napi::Object>().Get(key);
  return value.IsString() ? value.As<Napi::String>().Utf8Value() : fallback;
}

std::string PathArg(const Napi::CallbackInfo& info) {
  if (info.Length() < 1 || !info[0].IsString()) throw Napi::TypeError::New(info.Env(), "path must be a string");
  return info[0].As<Napi::String>().Utf8Value();
}

// allocate(bytes, {lock, lockBeyondLimit, registerCuda, backing}) → NativeBuffer (zeroed, page-aligned).
Napi::Value Allocate(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  if (info.Length() < 1 || !info[0].IsNumber()) throw Napi::TypeError::New(env, "allocate(bytes, options)");
  const double requested = info[0].As<Napi::Number>().DoubleValue();
  if (!(requested >= 0) || requested > 9007199254740991.0) throw Napi::RangeError::New(env, "bad byte count");
  const size_t bytes = static_cast<size_t>(requested);
  std::shared_ptr<HostBlock> block;
  Napi::ArrayBuffer engineBuffer;
  if (ResolveBacking(env, StringOption(info[1], "backing", "auto")) == Backing::kEngine) {
    block = CreateEngineBlock(env, bytes, &engineBuffer);
  } else {
    std::string error;
    block = HostBlock::MapAnonymous(bytes, &error);
    if (!block) throw Napi::Error::New(env, error);
  }
  block->Lock(BoolOption(info[1], "lock"), BoolOption(info[1], "lockBeyondLimit"));
  block->RegisterCuda(BoolOption(info[1], "registerCuda"));
  return NativeBuffer::Wrap(env, block, engineBuffer);
}

// fileResidency(path) → {residentBytes, totalBytes, numResidentPages, numPages, pageSize}.
Napi::Value FileResidency(const Napi::CallbackInfo& info) {
  ResidencyCount count;
  std::string error;
  if (!CountFileResidency(PathArg(info), &count, &error)) throw Napi::Error::New(info.Env(), error);
  return ResidencyToJs(info.Env(), count);
}

Napi::Object AdviceResultJs(Napi::Env env, bool isApplied, const std::string& reason) {
  Napi::Object out = Napi::Object::New(env);
  out.Set("isApplied", isApplied);
  out.Set("reason", reason);
  return out;
}

// Windowed WILLNEED over a whole file submits I/O for all of it: run it off the JS thread.
class WillNeedWorker : public Napi::AsyncWorker {
 public:
  WillNeedWorker(Napi::Env env, std::string path, AdviceMethod method)
      : Napi::AsyncWorker(env), deferred_(Napi::Promise::Deferred::New(env)), path_(std::move(path)), method_(method) {}
  Napi::Promise Promise() const { return deferred_.Promise(); }

 protected:
  void Execute() override { reason_ = AdviseFile(path_, Advice::kWillNeed, method_, &isApplied_); }
  void OnOK() override { deferred_.Resolve(AdviceResultJs(Env(), isApplied_, reason_)); }

 private:
  Napi::Promise::Deferred deferred_;
  std::string path_;
  AdviceMethod method_;
  bool isApplied_ = false;
  std::string reason_;
};

// adviseWillNeed(path, "fadvise"|"madvise") → Promise<{isApplied, reason}>.
Napi::Value AdviseWillNeedJs(const Napi::CallbackInfo& info) {
  const std::string methodName = info[1].IsString() ? info[1].As<Napi::String>().Utf8Value() : "fadvise";
  const AdviceMethod method = methodName == "madvise" ? AdviceMethod::kMadvise : AdviceMethod::kFadvise;
  auto* worker = new WillNeedWorker(info.Env(), PathArg(info), method);
  Napi::Promise promise = worker->Promise();
  worker->Queue();
  return promise;
}

// adviseDontNeed(path) → {isApplied, reason}; fast (fdatasync + one posix_fadvise), so synchronous.
Napi::Value AdviseDontNeedJs(const Napi::CallbackInfo& info) {
  bool isApplied = false;
  const std::string reason = AdviseFile(PathArg(info), Advice::kDontNeed, AdviceMethod::kFadvise, &isApplied);
  return AdviceResultJs(info.Env(), isApplied, reason);
}

Napi::Value LimitOrNull(Napi::Env env, bool isUnlimited, uint64_t bytes) {
  return isUnlimited ? env.Null() : Napi::Number::New(env, static_cast<double>(bytes));
}

// capabilities() → page size, memlock limits (null = unlimited), locked bytes, CUDA, backing.
Napi::Value Capabilities(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  const MemlockLimits limits = ReadMemlockLimits();
  std::string cudaReason;
  const bool isCudaPresent = IsCudaAvailable(&cudaReason);
  Napi::Object out = Napi::Object::New(env);
  out.Set("pageSize", static_cast<double>(PageSize()));
  out.Set("memlockSoftLimitBytes", LimitOrNull(env, limits.isSoftUnlimited, limits.softBytes));
  out.Set("memlockHardLimitBytes", LimitOrNull(env, limits.isHardUnlimited, limits.hardBytes));
  out.Set("lockedBytes", static_cast<double>(ReadLockedBytes()));
  out.Set("isCudaAvailable", isCudaPresent);
  out.Set("cudaReason", cudaReason);
  out.Set("isExternalBufferAllowed", env.GetInstanceData<AddonData>()->isExternalAllowed);
  out.Set("napiVersion", NAPI_VERSION);
  return out;
}

// setMemlockLimit(softBytes) → "" on success, else why (raising past the hard limit needs privilege).
Napi::Value SetMemlockLimit(const Napi::CallbackInfo& info) {
  if (info.Length() < 1 || !info[0].IsNumber()) throw Napi::TypeError::New(info.Env(), "setMemlockLimit(bytes)");
  const double bytes = info[0].As<Napi::Number>().DoubleValue();
  if (!(bytes >= 0)) throw Napi::RangeError::New(info.Env(), "bad byte count");
  return Napi::String::New(info.Env(), SetMemlockSoftLimit(static_cast<uint64_t>(bytes)));
}

// V8 memory cages (Electron) refuse external ArrayBuffers; probe once per environment.
bool ProbeExternalBuffers(Napi::Env env) {
  static char probe[1];
  napi_value value = nullptr;
  return napi_create_external_arraybuffer(env, probe, sizeof probe, nullptr, nullptr, &value) == napi_ok;
}

// trimHeap() -> { isApplied, reason }: glibc's malloc_trim(0); isApplied says whether pages went back.
Napi::Value TrimHeapJs(const Napi::CallbackInfo& info) {
  std::string reason;
  const bool isApplied = TrimHeap(&reason);
  return AdviceResultJs(info.Env(), isApplied, reason);
}

Napi::Object Init(Napi::Env env, Napi::Object exports) {
  auto* data = new AddonData();
  env.SetInstanceData<AddonData>(data);
  data->isExternalAllowed = ProbeExternalBuffers(env);
  NativeBuffer::Init(env, exports);
  exports.Set("allocate", Napi::Function::New<Allocate>(env, "allocate"));
  exports.Set("readFileInto", Napi::Function::New<ReadFileInto>(env, "readFileInto"));
  exports.Set("fileResidency", Napi::Function::New<FileResidency>(env, "fileResidency"));
  exports.Set("adviseWillNeed", Napi::Function::New<AdviseWillNeedJs>(env, "adviseWillNeed"));
  exports.Set("adviseDontNeed", Napi::Function::New<AdviseDontNeedJs>(env, "adviseDontNeed"));
  exports.Set("capabilities", Napi::Function::New<Capabilities>(env, "capabilities"));
  exports.Set("setMemlockLimit", Napi::Function::New<SetMemlockLimit>(env, "setMemlockLimit"));
  exports.Set("trimHeap", Napi::Function::New<TrimHeapJs>(env, "trimHeap"));
  InitOrtBinding(env, exports);
  // Bump when the JS-visible shape changes; the loader refuses a stale build with a clear reason.
  exports.Set("abiVersion", Napi::Number::New(env, 1));
  return exports;
}

}  // namespace
}  // namespace ffhm

static Napi::Object InitModule(Napi::Env env, Napi::Object exports) { return ffhm::Init(env, exports); }

NODE_API_MODULE(ff_host_memory, InitModule)
