#include "memlock.h"

#include <sys/mman.h>
#include <sys/resource.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <string>

namespace ffhm {
namespace {

std::atomic<uint64_t> gAddonLockedBytes{0};

#if defined(__linux__)
// VmLck from /proc/self/status, in bytes; returns false when it cannot be read.
bool ReadVmLck(uint64_t* bytes) {
  FILE* f = std::fopen("/proc/self/status", "r");
  if (f == nullptr) return false;
  char line[256];
  bool isFound = false;
  while (std::fgets(line, sizeof line, f) != nullptr) {
    unsigned long long kb = 0;
    if (std::sscanf(line, "VmLck: %llu kB", &kb) == 1) {
      *bytes = static_cast<uint64_t>(kb) * 1024ULL;
      isFound = true;
      break;
    }
  }
  std::fclose(f);
  return isFound;
}
#endif

std::string Errno(const char* what, int err) {
  return std::string(what) + ": " + std::strerror(err);
}

}  // namespace

size_t PageSize() {
  static const size_t pageSize = static_cast<size_t>(sysconf(_SC_PAGESIZE));
  return pageSize;
}

MemlockLimits ReadMemlockLimits() {
  MemlockLimits limits;
  struct rlimit rl {};
  if (getrlimit(RLIMIT_MEMLOCK, &rl) != 0) return limits;
  limits.isSoftUnlimited = rl.rlim_cur == RLIM_INFINITY;
  limits.isHardUnlimited = rl.rlim_max == RLIM_INFINITY;
  limits.softBytes = limits.isSoftUnlimited ? 0 : static_cast<uint64_t>(rl.rlim_cur);
  limits.hardBytes = limits.isHardUnlimited ? 0 : static_cast<uint64_t>(rl.rlim_max);
  return limits;
}

uint64_t ReadLockedBytes() {
#if defined(__linux__)
  uint64_t bytes = 0;
  if (ReadVmLck(&bytes)) return bytes;
#endif
  return gAddonLockedBytes.load();
}

std::string LockWithinLimit(void* addr, size_t len, bool isLimitBypassed, bool* isLocked) {
  *isLocked = false;
  if (len == 0) return "empty range: nothing to lock";
  const MemlockLimits limits = ReadMemlockLimits();
  const uint64_t pageSize = PageSize();
  const uint64_t need = (static_cast<uint64_t>(len) + pageSize - 1) / pageSize * pageSize;
  const uint64_t already = ReadLockedBytes();
  const bool isOverLimit = !limits.isSoftUnlimited && already + need > limits.softBytes;
  const std::string overLimit = "exceeds RLIMIT_MEMLOCK: need " + std::to_string(need) + " bytes, soft limit " +
                                std::to_string(limits.softBytes) + " bytes, already locked " +
                                std::to_string(already) + " bytes";
  if (isOverLimit && !isLimitBypassed) return overLimit;
  if (mlock(addr, len) != 0) {
    const int err = errno;
    return isOverLimit ? overLimit + "; " + Errno("mlock beyond it failed", err) : Errno("mlock failed", err);
  }
  gAddonLockedBytes += need;
  *isLocked = true;
  return isOverLimit ? "locked beyond RLIMIT_MEMLOCK (privileged process)" : "locked";
}

void UnlockRange(void* addr, size_t len) {
  if (len == 0) return;
  const uint64_t pageSize = PageSize();
  const uint64_t held = (static_cast<uint64_t>(len) + pageSize - 1) / pageSize * pageSize;
  munlock(addr, len);
  gAddonLockedBytes -= held;
}

std::string SetMemlockSoftLimit(uint64_t softBytes) {
  struct rlimit rl {};
  if (getrlimit(RLIMIT_MEMLOCK, &rl) != 0) return Errno("getrlimit failed", errno);
  rl.rlim_cur = static_cast<rlim_t>(softBytes);
  if (rl.rlim_max != RLIM_INFINITY && rl.rlim_cur > rl.rlim_max) rl.rlim_max = rl.rlim_cur;
  if (setrlimit(RLIMIT_MEMLOCK, &rl) != 0) return Errno("setrlimit failed", errno);
  return "";
}

}  // namespace ffhm
