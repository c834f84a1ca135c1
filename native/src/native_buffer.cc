#include "native_buffer.h"

#include <string>

#include "residency.h"

namespace ffhm {
namespace {

using BlockHolder = std::shared_ptr<HostBlock>;

// Drops one owner of the block; the last owner's destructor releases the memory.
void FinalizeHolder(napi_env /*env*/, void* /*data*/, void* hint) {
  delete static_cast<BlockHolder*>(hint);
}

Napi::ArrayBuffer MakeExternalArrayBuffer(Napi::Env env, const BlockHolder& block) {
  if (block->data() == nullptr) return Napi::ArrayBuffer::New(env, 0);
  napi_value value = nullptr;
  auto* holder = new BlockHolder(block);
  const napi_status status = napi_create_external_arraybuffer(env, block->data(), block->byteLength(),
                                                              FinalizeHolder, holder, &value);
  if (status != napi_ok) {
    delete holder;
    throw Napi::Error::New(env, "napi_create_external_arraybuffer failed (status " +
                                    std::to_string(static_cast<int>(status)) + ")");
  }
  return Napi::ArrayBuffer(env, value);
}

}  // namespace

Napi::Object ResidencyToJs(Napi::Env env, const ResidencyCount& count) {
  Napi::Object out = Napi::Object::New(env);
  out.Set("residentBytes", static_cast<double>(count.residentBytes));
  out.Set("totalBytes", static_cast<double>(count.totalBytes));
  out.Set("numResidentPages", static_cast<double>(count.numResidentPages));
  out.Set("numPages", static_cast<double>(count.numPages));
  out.Set("pageSize", static_cast<double>(count.pageSize));
  return out;
}

Backing ResolveBacking(Napi::Env env, const std::string& requested) {
  if (requested == "engine") return Backing::kEngine;
  if (requested == "external") return Backing::kExternal;
  return env.GetInstanceData<AddonData>()->isExternalAllowed ? Backing::kExternal : Backing::kEngine;
}

std::shared_ptr<HostBlock> CreateEngineBlock(Napi::Env env, size_t len, Napi::ArrayBuffer* out) {
  *out = Napi::ArrayBuffer::New(env, len);
  return HostBlock::AdoptEngineMemory(out->Data(), len);
}

void NativeBuffer::Init(Napi::Env env, Napi::Object exports) {
  Napi::Function ctor = DefineClass(env, "NativeBuffer",
                                    {
                                        InstanceAccessor<&NativeBuffer::GetArrayBuffer>("arrayBuffer"),
                                        InstanceMethod<&NativeBuffer::GetState>("state"),
                                        InstanceMethod<&NativeBuffer::Release>("release"),
                                        InstanceMethod<&NativeBuffer::Residency>("residency"),
                                    });
  env.GetInstanceData<AddonData>()->nativeBufferCtor = Napi::Persistent(ctor);
  exports.Set("NativeBuffer", ctor);
}

Napi::Object NativeBuffer::Wrap(Napi::Env env, std::shared_ptr<HostBlock> block, Napi::ArrayBuffer engineBuffer) {
  Napi::ArrayBuffer ab;
  if (block->backing() == Backing::kExternal) {
    ab = MakeExternalArrayBuffer(env, block);
  } else {
    ab = engineBuffer;
    napi_status status = napi_add_finalizer(env, ab, nullptr, FinalizeHolder, new BlockHolder(block), nullptr);
    if (status != napi_ok) throw Napi::Error::New(env, "napi_add_finalizer failed");
  }
  auto* holder = new BlockHolder(block);
  Napi::External<BlockHolder> handle = Napi::External<BlockHolder>::New(env, holder, [](Napi::Env, BlockHolder* h) { delete h; });
  return env.GetInstanceData<AddonData>()->nativeBufferCtor.New({handle, ab});
}

NativeBuffer::NativeBuffer(const Napi::CallbackInfo& info) : Napi::ObjectWrap<NativeBuffer>(info) {
  if (info.Length() < 2 || !info[0].IsExternal() || !info[1].IsArrayBuffer()) {
    throw Napi::TypeError::New(info.Env(), "NativeBuffer is created by allocate() or readFileInto()");
  }
  block_ = *info[0].As<Napi::External<BlockHolder>>().Data();
  arrayBuffer_ = Napi::Persistent(info[1].As<Napi::ArrayBuffer>());
}

Napi::Value NativeBuffer::GetArrayBuffer(const Napi::CallbackInfo& /*info*/) { return arrayBuffer_.Value(); }

Napi::Value NativeBuffer::GetState(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  Napi::Object out = Napi::Object::New(env);
  out.Set("byteLength", static_cast<double>(block_->byteLength()));
  out.Set("isLocked", block_->isLocked());
  out.Set("lockedBytes", static_cast<double>(block_->lockedBytes()));
  out.Set("lockReason", block_->lockReason());
  out.Set("isCudaRegistered", block_->isCudaRegistered());
  out.Set("cudaReason", block_->cudaReason());
  out.Set("isReleased", block_->isReleased());
  out.Set("backing", block_->backing() == Backing::kExternal ? "external" : "engine");
  return out;
}

Napi::Value NativeBuffer::Release(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  if (block_->isReleased()) return Napi::Boolean::New(env, false);
  Napi::ArrayBuffer ab = arrayBuffer_.Value();
  if (block_->backing() == Backing::kEngine) {
    // The engine frees its memory on detach: unlock first, then detach.
    const bool isReleased = block_->Release();
    if (!ab.IsDetached()) ab.Detach();
    return Napi::Boolean::New(env, isReleased);
  }
  // Our mapping: detach first (views become empty; throws before anything is freed), then unmap.
  if (!ab.IsDetached()) ab.Detach();
  return Napi::Boolean::New(env, block_->Release());
}

Napi::Value NativeBuffer::Residency(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  ResidencyCount count;
  std::string error;
  if (block_->isReleased()) return env.Null();
  if (!CountResidentRange(block_->data(), block_->byteLength(), &count, &error)) {
    throw Napi::Error::New(env, error);
  }
  return ResidencyToJs(env, count);
}

}  // namespace ffhm
