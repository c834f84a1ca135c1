#include "host_block.h"

#include <sys/mman.h>

#include <cerrno>
#include <cstdint>
#include <cstring>

#include "cuda_register.h"
#include "memlock.h"

namespace ffhm {

HostBlock::HostBlock(void* data, size_t byteLength, size_t mappedLength, bool isOwned)
    : data_(data), byteLength_(byteLength), mappedLength_(mappedLength), isOwned_(isOwned) {}

HostBlock::~HostBlock() { Release(); }

namespace {

// Transparent huge pages: one fault per 2 MiB instead of per 4 KiB makes filling (or mlock-ing)
// a large buffer much cheaper. The kernel only uses them for 2 MiB-aligned ranges.
constexpr size_t kHugePageBytes = 2u << 20;

// Maps `mapped` bytes starting on a 2 MiB boundary (big buffers) and asks for huge pages.
void* MapAligned(size_t mapped) {
  const int prot = PROT_READ | PROT_WRITE;
  const int flags = MAP_PRIVATE | MAP_ANONYMOUS;
  if (mapped < 2 * kHugePageBytes) return mmap(nullptr, mapped, prot, flags, -1, 0);
  const size_t reserved = mapped + kHugePageBytes;
  void* raw = mmap(nullptr, reserved, prot, flags, -1, 0);
  if (raw == MAP_FAILED) return raw;
  const uintptr_t start = reinterpret_cast<uintptr_t>(raw);
  const uintptr_t aligned = (start + kHugePageBytes - 1) / kHugePageBytes * kHugePageBytes;
  if (aligned > start) munmap(raw, aligned - start);
  const uintptr_t tail = aligned + mapped;
  if (start + reserved > tail) munmap(reinterpret_cast<void*>(tail), start + reserved - tail);
#if defined(MADV_HUGEPAGE)
  madvise(reinterpret_cast<void*>(aligned), mapped, MADV_HUGEPAGE);  // a hint: failure is harmless
#endif
  return reinterpret_cast<void*>(aligned);
}

}  // namespace

std::shared_ptr<HostBlock> HostBlock::MapAnonymous(size_t len, std::string* error) {
  const size_t pageSize = PageSize();
  const size_t mapped = (len + pageSize - 1) / pageSize * pageSize;
  void* data = nullptr;
  if (mapped > 0) {
    data = MapAligned(mapped);
    if (data == MAP_FAILED) {
      *error = std::string("mmap failed: ") + std::strerror(errno);
      return nullptr;
    }
  }
  return std::shared_ptr<HostBlock>(new HostBlock(data, len, mapped, true));
}

std::shared_ptr<HostBlock> HostBlock::AdoptEngineMemory(void* data, size_t len) {
  return std::shared_ptr<HostBlock>(new HostBlock(data, len, 0, false));
}

void HostBlock::Lock(bool isWanted, bool isLimitBypassed) {
  if (!isWanted || isReleased_) return;
  if (isOwned_) {
    lockAddr_ = data_;
    lockLength_ = mappedLength_;
  } else {
    const uintptr_t pageSize = PageSize();
    const uintptr_t start = reinterpret_cast<uintptr_t>(data_);
    const uintptr_t first = (start + pageSize - 1) / pageSize * pageSize;
    const uintptr_t end = (start + byteLength_) / pageSize * pageSize;
    lockAddr_ = reinterpret_cast<void*>(first);
    lockLength_ = end > first ? end - first : 0;
  }
  if (lockLength_ == 0) {
    lockReason_ = "buffer has no whole page to lock";
    return;
  }
  lockReason_ = LockWithinLimit(lockAddr_, lockLength_, isLimitBypassed, &isLocked_);
}

void HostBlock::RegisterCuda(bool isWanted) {
  if (!isWanted || isReleased_) return;
  cudaReason_ = CudaRegister(data_, byteLength_, &isCudaRegistered_);
}

bool HostBlock::Release() {
  if (isReleased_) return false;
  isReleased_ = true;
  if (isCudaRegistered_) CudaUnregister(data_);
  if (isLocked_) UnlockRange(lockAddr_, lockLength_);
  if (isOwned_ && data_ != nullptr) munmap(data_, mappedLength_);
  isCudaRegistered_ = false;
  isLocked_ = false;
  data_ = nullptr;
  return true;
}

}  // namespace ffhm
