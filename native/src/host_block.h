// One host memory block: page-aligned anonymous mapping (or engine-owned memory), its lock
// and its optional CUDA registration. Release is idempotent, so an explicit release and the
// GC finalizer can both run without a double free.
#pragma once
#include <cstddef>
#include <memory>
#include <string>

namespace ffhm {

enum class Backing { kExternal, kEngine };

class HostBlock {
 public:
  // Maps `len` bytes of zeroed, page-aligned anonymous memory. nullptr + *error on failure.
  static std::shared_ptr<HostBlock> MapAnonymous(size_t len, std::string* error);
  // Adopts memory the JS engine owns (V8 memory cage, e.g. Electron): never freed here, and
  // only its whole interior pages are locked so neighbours' pages are never unlocked.
  static std::shared_ptr<HostBlock> AdoptEngineMemory(void* data, size_t len);

  HostBlock(const HostBlock&) = delete;
  HostBlock& operator=(const HostBlock&) = delete;
  ~HostBlock();

  // Applies the lock policy (RLIMIT_MEMLOCK respected unless isLimitBypassed); records why not.
  void Lock(bool isWanted, bool isLimitBypassed);
  // Registers with CUDA when wanted and present; records why not otherwise.
  void RegisterCuda(bool isWanted);
  // munlock + cudaHostUnregister + munmap (owned memory). True only for the call that did it.
  bool Release();

  void* data() const { return data_; }
  size_t byteLength() const { return byteLength_; }
  size_t lockedBytes() const { return isLocked_ ? lockLength_ : 0; }
  Backing backing() const { return isOwned_ ? Backing::kExternal : Backing::kEngine; }
  bool isLocked() const { return isLocked_; }
  bool isReleased() const { return isReleased_; }
  bool isCudaRegistered() const { return isCudaRegistered_; }
  const std::string& lockReason() const { return lockReason_; }
  const std::string& cudaReason() const { return cudaReason_; }

 private:
  HostBlock(void* data, size_t byteLength, size_t mappedLength, bool isOwned);

  void* data_;
  size_t byteLength_;
  size_t mappedLength_;
  bool isOwned_;
  void* lockAddr_ = nullptr;
  size_t lockLength_ = 0;
  bool isLocked_ = false;
  bool isCudaRegistered_ = false;
  bool isReleased_ = false;
  std::string lockReason_ = "lock not requested";
  std::string cudaReason_ = "cuda registration not requested";
};

}  // namespace ffhm
