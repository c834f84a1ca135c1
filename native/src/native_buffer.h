// NativeBuffer: the JS face of one HostBlock. Holds the ArrayBuffer strongly; the ArrayBuffer's
// own finalizer holds the block too, so the memory lives while either is reachable, and
// release() detaches the ArrayBuffer before freeing so no view can touch freed memory.
#pragma once
#include <napi.h>

#include <memory>

#include "host_block.h"
#include "residency.h"

namespace ffhm {

// Per-environment state (one per main thread / worker thread).
struct AddonData {
  Napi::FunctionReference nativeBufferCtor;
  Napi::FunctionReference boundSessionCtor;  // ort_session.cc
  bool isExternalAllowed = true;  // false under a V8 memory cage (Electron)
};

// Which backing to use for a request: "external" | "engine" | "auto" (external when allowed).
Backing ResolveBacking(Napi::Env env, const std::string& requested);

// Creates an engine-owned ArrayBuffer of `len` bytes and a block adopting its memory.
std::shared_ptr<HostBlock> CreateEngineBlock(Napi::Env env, size_t len, Napi::ArrayBuffer* out);

// {residentBytes, totalBytes, numResidentPages, numPages, pageSize} as a JS object.
Napi::Object ResidencyToJs(Napi::Env env, const ResidencyCount& count);

class NativeBuffer : public Napi::ObjectWrap<NativeBuffer> {
 public:
  static void Init(Napi::Env env, Napi::Object exports);
  // Wraps a block. For engine blocks pass the ArrayBuffer that owns the memory.
  static Napi::Object Wrap(Napi::Env env, std::shared_ptr<HostBlock> block, Napi::ArrayBuffer engineBuffer);
  explicit NativeBuffer(const Napi::CallbackInfo& info);

 private:
  Napi::Value GetArrayBuffer(const Napi::CallbackInfo& info);
  Napi::Value GetState(const Napi::CallbackInfo& info);
  Napi::Value Release(const Napi::CallbackInfo& info);
  Napi::Value Residency(const Napi::CallbackInfo& info);

  std::shared_ptr<HostBlock> block_;
  Napi::Reference<Napi::ArrayBuffer> arrayBuffer_;
};

}  // namespace ffhm
