#include "ort_session.h"

#include <condition_variable>
#include <map>
#include <mutex>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "native_buffer.h"
#include "grouped_attention_op.h"
#include "ort_api.h"

namespace ffhm {
namespace {

using ort::Api;

// What the session is built with (the TS side maps the slot's RunnerOptions onto it).
struct SessionConfig {
  int intraOpNumThreads = 1;
  int interOpNumThreads = 1;
  int graphOptimizationLevel = 99;
  int logSeverityLevel = 3;
  std::string optimizedModelFilePath;
  std::string profileFilePrefix;
  std::vector<std::pair<std::string, std::string>> entries;
  bool isGroupedAttention = false;  // our GroupQueryAttention kernel (grouped_attention_op.h)
};

// The native half of a session: ONNX Runtime's handles, freed once.
struct SessionHandles {
  const Api* api = nullptr;
  ort::Session* session = nullptr;
  ort::IoBinding* binding = nullptr;
  ort::MemoryInfo* cpu = nullptr;
  std::vector<std::string> inputNames;
  std::vector<std::string> outputNames;
  // "grouped" when our attention kernel serves the session, else "onnxruntime" and why.
  std::string attention = "onnxruntime";

  void Release() {
    if (api == nullptr) return;
    if (binding != nullptr) api->At<ort::ReleaseFn<ort::IoBinding>>(ort::kReleaseIoBinding)(binding);
    if (session != nullptr) api->At<ort::ReleaseFn<ort::Session>>(ort::kReleaseSession)(session);
    if (cpu != nullptr) api->At<ort::ReleaseFn<ort::MemoryInfo>>(ort::kReleaseMemoryInfo)(cpu);
    binding = nullptr;
    session = nullptr;
    cpu = nullptr;
  }
};

std::string SetOptions(const Api& api, ort::SessionOptions* options, const SessionConfig& config) {
  using IntFn = ort::SessionOptionsIntFn;
  using PathFn = ort::SessionOptionsPathFn;
  std::string error = api.Call<IntFn>(ort::kSetIntraOpNumThreads, options, config.intraOpNumThreads);
  if (error.empty()) error = api.Call<IntFn>(ort::kSetInterOpNumThreads, options, config.interOpNumThreads);
  if (error.empty())
    error = api.Call<IntFn>(ort::kSetSessionGraphOptimizationLevel, options, config.graphOptimizationLevel);
  if (error.empty()) error = api.Call<IntFn>(ort::kSetSessionLogSeverityLevel, options, config.logSeverityLevel);
  if (error.empty() && !config.optimizedModelFilePath.empty())
    error = api.Call<PathFn>(ort::kSetOptimizedModelFilePath, options, config.optimizedModelFilePath.c_str());
  if (error.empty() && !config.profileFilePrefix.empty())
    error = api.Call<PathFn>(ort::kEnableProfiling, options, config.profileFilePrefix.c_str());
  for (const auto& [key, value] : config.entries) {
    if (!error.empty()) break;
    error = api.Call<ort::AddSessionConfigEntryFn>(ort::kAddSessionConfigEntry, options, key.c_str(), value.c_str());
  }
  return error;
}

std::string ReadNames(const Api& api, ort::Session* session, bool isInput, std::vector<std::string>* names) {
  ort::Allocator* allocator = nullptr;
  std::string error = api.Call<ort::GetDefaultAllocatorFn>(ort::kGetAllocatorWithDefaultOptions, &allocator);
  size_t count = 0;
  const ort::Index countAt = isInput ? ort::kSessionGetInputCount : ort::kSessionGetOutputCount;
  const ort::Index nameAt = isInput ? ort::kSessionGetInputName : ort::kSessionGetOutputName;
  if (error.empty()) error = api.Call<ort::SessionCountFn>(countAt, session, &count);
  for (size_t i = 0; i < count && error.empty(); i++) {
    char* name = nullptr;
    error = api.Call<ort::SessionNameFn>(nameAt, session, i, allocator, &name);
    if (!error.empty()) break;
    names->emplace_back(name);
    error = api.Call<ort::AllocatorFreeFn>(ort::kAllocatorFree, allocator, name);
  }
  return error;
}

// Builds the session, its binding and the CPU memory info (a "" return means all were made).
std::string CreateHandles(const Api& api, const std::string& path, const std::vector<uint8_t>& bytes,
                          const SessionConfig& config, SessionHandles* out) {
  out->api = &api;
  ort::SessionOptions* options = nullptr;
  std::string error = api.Call<ort::CreateSessionOptionsFn>(ort::kCreateSessionOptions, &options);
  if (error.empty()) error = SetOptions(api, options, config);
  if (error.empty() && config.isGroupedAttention) {
    const std::string why = ort::AddGroupedAttention(api, options);
    out->attention = why.empty() ? "grouped" : "onnxruntime (" + why + ")";
  }
  if (error.empty() && path.empty())
    error = api.Call<ort::CreateSessionFromArrayFn>(ort::kCreateSessionFromArray, api.env, bytes.data(), bytes.size(),
                                                     options, &out->session);
  else if (error.empty())
    error = api.Call<ort::CreateSessionFn>(ort::kCreateSession, api.env, path.c_str(), options, &out->session);
  if (options != nullptr) api.At<ort::ReleaseFn<ort::SessionOptions>>(ort::kReleaseSessionOptions)(options);
  constexpr int kArenaAllocator = 1;
  constexpr int kMemTypeDefault = 0;
  if (error.empty())
    error = api.Call<ort::CreateCpuMemoryInfoFn>(ort::kCreateCpuMemoryInfo, kArenaAllocator, kMemTypeDefault,
                                                 &out->cpu);
  if (error.empty()) error = api.Call<ort::CreateIoBindingFn>(ort::kCreateIoBinding, out->session, &out->binding);
  if (error.empty()) error = ReadNames(api, out->session, true, &out->inputNames);
  if (error.empty()) error = ReadNames(api, out->session, false, &out->outputNames);
  if (!error.empty()) out->Release();
  return error;
}

// A typed array's first byte, read from N-API directly so SharedArrayBuffer-backed arrays work too.
uint8_t* DataOf(const Napi::TypedArray& array) {
  void* data = nullptr;
  const napi_status status = napi_get_typedarray_info(array.Env(), array, nullptr, nullptr, &data, nullptr, nullptr);
  NAPI_THROW_IF_FAILED(array.Env(), status, nullptr);
  return static_cast<uint8_t*>(data);
}

Napi::Array NamesJs(Napi::Env env, const std::vector<std::string>& names) {
  Napi::Array out = Napi::Array::New(env, names.size());
  for (size_t i = 0; i < names.size(); i++) out.Set(static_cast<uint32_t>(i), names[i]);
  return out;
}

// One bound tensor: ONNX Runtime's value over the caller's typed array, which stays referenced
// (so its memory stays alive) until the name is bound again or the session is released.
struct Bound {
  ort::Value* value = nullptr;
  Napi::Reference<Napi::TypedArray> array;
};

// Whether RunWithBinding is executing on the pool: the session's memory (ONNX Runtime's handles and
// the bound arrays) must outlive it, so teardown waits here before freeing anything.
class RunGate {
 public:
  void Begin() {
    std::lock_guard<std::mutex> lock(mutex_);
    isRunning_ = true;
  }
  void End() {
    std::lock_guard<std::mutex> lock(mutex_);
    isRunning_ = false;
    done_.notify_all();
  }
  bool IsRunning() {
    std::lock_guard<std::mutex> lock(mutex_);
    return isRunning_;
  }
  void Wait() {
    std::unique_lock<std::mutex> lock(mutex_);
    done_.wait(lock, [this] { return !isRunning_; });
  }

 private:
  std::mutex mutex_;
  std::condition_variable done_;
  bool isRunning_ = false;
};

class BoundSession : public Napi::ObjectWrap<BoundSession> {
 public:
  static Napi::Function Define(Napi::Env env) {
    return DefineClass(env, "BoundSession",
                       {InstanceMethod<&BoundSession::BindInput>("bindInput"),
                        InstanceMethod<&BoundSession::BindOutput>("bindOutput"),
                        InstanceMethod<&BoundSession::Run>("run"),
                        InstanceMethod<&BoundSession::RunHere>("runHere"),
                        InstanceMethod<&BoundSession::EndProfiling>("endProfiling"),
                        InstanceMethod<&BoundSession::Release>("release")});
  }

  explicit BoundSession(const Napi::CallbackInfo& info) : Napi::ObjectWrap<BoundSession>(info), env_(info.Env()) {}
  ~BoundSession() override {
    if (hasCleanupHook_) napi_remove_env_cleanup_hook(env_, Cleanup, this);
    FreeAll();
  }

  // Takes the built session; an environment torn down (a worker terminated) mid-run frees it after the run.
  void Adopt(SessionHandles handles) {
    handles_ = std::move(handles);
    hasCleanupHook_ = napi_add_env_cleanup_hook(env_, Cleanup, this) == napi_ok;
  }

 private:
  static void Cleanup(void* arg) {
    auto* self = static_cast<BoundSession*>(arg);
    self->hasCleanupHook_ = false;
    self->FreeAll();
  }

  // Frees ONNX Runtime's values and handles, after a run in flight has returned.
  void FreeAll() {
    gate_->Wait();
    if (handles_.api == nullptr) return;
    for (auto& [name, bound] : bound_) handles_.api->At<ort::ReleaseFn<ort::Value>>(ort::kReleaseValue)(bound.value);
    bound_.clear();
    handles_.Release();
  }

  void CheckUsable(Napi::Env env) const {
    if (handles_.session == nullptr) throw Napi::Error::New(env, "the session was released");
    if (gate_->IsRunning()) throw Napi::Error::New(env, "the session is running: wait for run() to settle");
  }

  // bindInput|bindOutput(name, typedArray, dims, elementType)
  Napi::Value Bind(const Napi::CallbackInfo& info, bool isInput) {
    Napi::Env env = info.Env();
    CheckUsable(env);
    if (info.Length() < 4 || !info[0].IsString() || !info[1].IsTypedArray() || !info[2].IsArray() ||
        !info[3].IsNumber())
      throw Napi::TypeError::New(env, "bind(name, typedArray, dims, elementType)");
    const std::string name = info[0].As<Napi::String>().Utf8Value();
    Napi::TypedArray array = info[1].As<Napi::TypedArray>();
    Napi::Array dimsJs = info[2].As<Napi::Array>();
    std::vector<int64_t> dims(dimsJs.Length());
    for (uint32_t i = 0; i < dimsJs.Length(); i++) dims[i] = dimsJs.Get(i).As<Napi::Number>().Int64Value();
    const int elementType = info[3].As<Napi::Number>().Int32Value();
    uint8_t* data = DataOf(array);
    const Api& api = *handles_.api;
    ort::Value* value = nullptr;
    std::string error = api.Call<ort::CreateTensorWithDataFn>(ort::kCreateTensorWithDataAsOrtValue, handles_.cpu, data,
                                                              array.ByteLength(), dims.data(), dims.size(),
                                                              elementType, &value);
    const ort::Index bindAt = isInput ? ort::kBindInput : ort::kBindOutput;
    if (error.empty()) error = api.Call<ort::BindFn>(bindAt, handles_.binding, name.c_str(), value);
    if (!error.empty()) {
      if (value != nullptr) api.At<ort::ReleaseFn<ort::Value>>(ort::kReleaseValue)(value);
      throw Napi::Error::New(env, (isInput ? "bindInput " : "bindOutput ") + name + ": " + error);
    }
    const std::string key = (isInput ? "in:" : "out:") + name;
    auto found = bound_.find(key);
    if (found != bound_.end()) api.At<ort::ReleaseFn<ort::Value>>(ort::kReleaseValue)(found->second.value);
    Bound& slot = bound_[key];
    slot.value = value;
    slot.array = Napi::Persistent(array);
    return env.Undefined();
  }

  Napi::Value BindInput(const Napi::CallbackInfo& info) { return Bind(info, true); }
  Napi::Value BindOutput(const Napi::CallbackInfo& info) { return Bind(info, false); }
  Napi::Value Run(const Napi::CallbackInfo& info);

  // runHere(): RunWithBinding on the calling thread, which waits for it. For a thread that does
  // nothing else meanwhile (a slot's worker): no hop to the libuv pool and back per forward.
  Napi::Value RunHere(const Napi::CallbackInfo& info) {
    CheckUsable(info.Env());
    gate_->Begin();
    const std::string error =
        handles_.api->Call<ort::RunWithBindingFn>(ort::kRunWithBinding, handles_.session, nullptr, handles_.binding);
    gate_->End();
    if (!error.empty()) throw Napi::Error::New(info.Env(), error);
    return info.Env().Undefined();
  }

  // endProfiling() → the profile file's path (a session built with profileFilePrefix).
  Napi::Value EndProfiling(const Napi::CallbackInfo& info) {
    CheckUsable(info.Env());
    const Api& api = *handles_.api;
    ort::Allocator* allocator = nullptr;
    char* path = nullptr;
    std::string error = api.Call<ort::GetDefaultAllocatorFn>(ort::kGetAllocatorWithDefaultOptions, &allocator);
    if (error.empty())
      error = api.Call<ort::SessionEndProfilingFn>(ort::kSessionEndProfiling, handles_.session, allocator, &path);
    if (!error.empty()) throw Napi::Error::New(info.Env(), "endProfiling: " + error);
    const std::string out = path != nullptr ? path : "";
    if (path != nullptr) api.Call<ort::AllocatorFreeFn>(ort::kAllocatorFree, allocator, path);
    return Napi::String::New(info.Env(), out);
  }

  Napi::Value Release(const Napi::CallbackInfo& info) {
    if (gate_->IsRunning()) throw Napi::Error::New(info.Env(), "the session is running: wait for run() to settle");
    FreeAll();
    return info.Env().Undefined();
  }

  napi_env env_;
  SessionHandles handles_;
  std::map<std::string, Bound> bound_;
  std::shared_ptr<RunGate> gate_ = std::make_shared<RunGate>();
  bool hasCleanupHook_ = false;
};

// RunWithBinding on the libuv pool: the JS thread never waits for a forward.
class RunWorker : public Napi::AsyncWorker {
 public:
  RunWorker(Napi::Env env, const SessionHandles& handles, std::shared_ptr<RunGate> gate, Napi::Object self)
      : Napi::AsyncWorker(env), deferred_(Napi::Promise::Deferred::New(env)), api_(handles.api),
        session_(handles.session), binding_(handles.binding), gate_(std::move(gate)), self_(Napi::Persistent(self)) {
    gate_->Begin();
  }
  ~RunWorker() override { gate_->End(); }  // also when the work never ran (cancelled at teardown)
  Napi::Promise Promise() const { return deferred_.Promise(); }

 protected:
  void Execute() override {
    error_ = api_->Call<ort::RunWithBindingFn>(ort::kRunWithBinding, session_, nullptr, binding_);
    gate_->End();
  }
  void OnOK() override {
    try {
      if (error_.empty())
        deferred_.Resolve(Env().Undefined());
      else
        deferred_.Reject(Napi::Error::New(Env(), error_).Value());
    } catch (const Napi::Error&) {
      // The environment is being torn down (a terminated worker): nobody awaits this run.
    }
  }

 private:
  Napi::Promise::Deferred deferred_;
  const Api* api_;
  ort::Session* session_;
  ort::IoBinding* binding_;
  std::shared_ptr<RunGate> gate_;
  Napi::ObjectReference self_;
  std::string error_;
};

Napi::Value BoundSession::Run(const Napi::CallbackInfo& info) {
  CheckUsable(info.Env());
  auto* worker = new RunWorker(info.Env(), handles_, gate_, info.This().As<Napi::Object>());
  Napi::Promise promise = worker->Promise();
  worker->Queue();
  return promise;
}

// Session creation (graph load, optimization, weight packing) also runs on the pool.
class CreateWorker : public Napi::AsyncWorker {
 public:
  CreateWorker(Napi::Env env, const Api& api, std::string path, std::vector<uint8_t> bytes, SessionConfig config)
      : Napi::AsyncWorker(env), deferred_(Napi::Promise::Deferred::New(env)), api_(api), path_(std::move(path)),
        bytes_(std::move(bytes)), config_(std::move(config)) {}
  ~CreateWorker() override { handles_.Release(); }
  Napi::Promise Promise() const { return deferred_.Promise(); }

 protected:
  void Execute() override {
    error_ = CreateHandles(api_, path_, bytes_, config_, &handles_);
    bytes_.clear();
    bytes_.shrink_to_fit();
  }
  void OnOK() override {
    Napi::Env env = Env();
    try {
      if (!error_.empty()) {
        deferred_.Reject(Napi::Error::New(env, error_).Value());
        return;
      }
      Napi::Object object = env.GetInstanceData<AddonData>()->boundSessionCtor.New({});
      object.Set("inputNames", NamesJs(env, handles_.inputNames));
      object.Set("outputNames", NamesJs(env, handles_.outputNames));
      object.Set("attention", handles_.attention);
      BoundSession::Unwrap(object)->Adopt(std::move(handles_));
      handles_ = SessionHandles();
      deferred_.Resolve(object);
    } catch (const Napi::Error&) {
      // The environment is being torn down: the destructor frees a session nobody took.
    }
  }

 private:
  Napi::Promise::Deferred deferred_;
  const Api& api_;
  std::string path_;
  std::vector<uint8_t> bytes_;
  SessionConfig config_;
  SessionHandles handles_;
  std::string error_;
};

int IntOption(const Napi::Object& options, const char* key, int fallback) {
  Napi::Value value = options.Get(key);
  return value.IsNumber() ? value.As<Napi::Number>().Int32Value() : fallback;
}

std::string StringOf(const Napi::Object& options, const char* key) {
  Napi::Value value = options.Get(key);
  return value.IsString() ? value.As<Napi::String>().Utf8Value() : "";
}

SessionConfig ConfigOf(const Napi::Object& options) {
  SessionConfig config;
  config.intraOpNumThreads = IntOption(options, "intraOpNumThreads", 1);
  config.interOpNumThreads = IntOption(options, "interOpNumThreads", 1);
  config.graphOptimizationLevel = IntOption(options, "graphOptimizationLevel", 99);
  config.logSeverityLevel = IntOption(options, "logSeverityLevel", 3);
  config.optimizedModelFilePath = StringOf(options, "optimizedModelFilePath");
  config.profileFilePrefix = StringOf(options, "profileFilePrefix");
  config.isGroupedAttention = options.Get("groupedAttention").ToBoolean().Value();
  Napi::Value entries = options.Get("configEntries");
  if (entries.IsArray()) {
    Napi::Array list = entries.As<Napi::Array>();
    for (uint32_t i = 0; i < list.Length(); i++) {
      Napi::Array pair = list.Get(i).As<Napi::Array>();
      config.entries.emplace_back(pair.Get(0u).ToString().Utf8Value(), pair.Get(1u).ToString().Utf8Value());
    }
  }
  return config;
}

// ortLoad(libraryPath) → {isLoaded, reason, version}; never throws for a missing library.
Napi::Value OrtLoad(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  if (info.Length() < 1 || !info[0].IsString()) throw Napi::TypeError::New(env, "ortLoad(libraryPath)");
  const Api& api = ort::LoadApi(info[0].As<Napi::String>().Utf8Value());
  Napi::Object out = Napi::Object::New(env);
  out.Set("isLoaded", api.table != nullptr);
  out.Set("reason", api.table != nullptr ? "loaded" : api.reason);
  out.Set("version", api.version);
  return out;
}

// ortCreateSession(libraryPath, pathOrBytes, options) → Promise<BoundSession>.
Napi::Value OrtCreateSession(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  const bool isSource = info.Length() >= 2 && (info[1].IsString() || info[1].IsTypedArray());
  if (info.Length() < 3 || !info[0].IsString() || !isSource || !info[2].IsObject())
    throw Napi::TypeError::New(env, "ortCreateSession(libraryPath, pathOrBytes, options)");
  const Api& api = ort::LoadApi(info[0].As<Napi::String>().Utf8Value());
  if (api.table == nullptr) throw Napi::Error::New(env, api.reason);
  std::string path;
  std::vector<uint8_t> bytes;
  if (info[1].IsString()) {
    path = info[1].As<Napi::String>().Utf8Value();
  } else {
    // A copy: the graph's bytes must outlive the caller's array while the pool builds the session.
    Napi::TypedArray array = info[1].As<Napi::TypedArray>();
    const uint8_t* data = DataOf(array);
    bytes.assign(data, data + array.ByteLength());
  }
  auto* worker = new CreateWorker(env, api, std::move(path), std::move(bytes), ConfigOf(info[2].As<Napi::Object>()));
  Napi::Promise promise = worker->Promise();
  worker->Queue();
  return promise;
}

}  // namespace

void InitOrtBinding(Napi::Env env, Napi::Object exports) {
  env.GetInstanceData<AddonData>()->boundSessionCtor = Napi::Persistent(BoundSession::Define(env));
  exports.Set("ortLoad", Napi::Function::New<OrtLoad>(env, "ortLoad"));
  exports.Set("ortCreateSession", Napi::Function::New<OrtCreateSession>(env, "ortCreateSession"));
}

}  // namespace ffhm
