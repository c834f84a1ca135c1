// RLIMIT_MEMLOCK: read it, respect it, lock within it. One job: the lock policy.
#pragma once
#include <cstddef>
#include <cstdint>
#include <string>

namespace ffhm {

// Soft and hard RLIMIT_MEMLOCK in bytes; isUnlimited when the soft limit is RLIM_INFINITY.
struct MemlockLimits {
  uint64_t softBytes = 0;
  uint64_t hardBytes = 0;
  bool isSoftUnlimited = false;
  bool isHardUnlimited = false;
};

MemlockLimits ReadMemlockLimits();

// Bytes this process has locked right now (VmLck on Linux; the addon's own count elsewhere).
uint64_t ReadLockedBytes();

// Locks [addr, addr+len) if the request fits under the soft limit together with what is
// already locked; otherwise leaves it unlocked. isLimitBypassed tries mlock anyway (succeeds
// only for a process with CAP_IPC_LOCK; benchmarks). Returns the reason string either way
// ("locked" on success). Never throws.
std::string LockWithinLimit(void* addr, size_t len, bool isLimitBypassed, bool* isLocked);

// Unlocks a range locked by LockWithinLimit (keeps the addon's own count right).
void UnlockRange(void* addr, size_t len);

// Sets the soft limit (cannot exceed the hard limit unless privileged). Empty string = ok.
std::string SetMemlockSoftLimit(uint64_t softBytes);

size_t PageSize();

}  // namespace ffhm
