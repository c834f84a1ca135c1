#include "advice.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

namespace ffhm {
namespace {

constexpr uint64_t kMapWindowBytes = 1ULL << 30;

std::string Errno(const std::string& what, int err) { return what + ": " + std::strerror(err); }

std::string FadviseWillNeed(int fd, uint64_t size) {
#if defined(__linux__)
  for (uint64_t offset = 0; offset < size; offset += kWillNeedWindowBytes) {
    const uint64_t len = std::min(kWillNeedWindowBytes, size - offset);
    const int rc = posix_fadvise(fd, static_cast<off_t>(offset), static_cast<off_t>(len), POSIX_FADV_WILLNEED);
    if (rc != 0) return Errno("posix_fadvise(WILLNEED) failed", rc);
  }
  return "";
#else
  (void)fd;
  (void)size;
  return "posix_fadvise is not available on this platform";
#endif
}

// madvise WILLNEED on read-only shared mappings (1 GiB at a time), window by window.
std::string MadviseWillNeed(int fd, uint64_t size) {
  for (uint64_t base = 0; base < size; base += kMapWindowBytes) {
    const size_t mapLen = static_cast<size_t>(std::min(kMapWindowBytes, size - base));
    void* addr = mmap(nullptr, mapLen, PROT_READ, MAP_SHARED, fd, static_cast<off_t>(base));
    if (addr == MAP_FAILED) return Errno("mmap failed", errno);
    std::string error;
    for (size_t offset = 0; offset < mapLen && error.empty(); offset += kWillNeedWindowBytes) {
      const size_t len = std::min<size_t>(kWillNeedWindowBytes, mapLen - offset);
      if (madvise(static_cast<char*>(addr) + offset, len, MADV_WILLNEED) != 0) error = Errno("madvise failed", errno);
    }
    munmap(addr, mapLen);
    if (!error.empty()) return error;
  }
  return "";
}

std::string FadviseDontNeed(int fd) {
  if (fdatasync(fd) != 0) return Errno("fdatasync failed", errno);
#if defined(__linux__)
  const int rc = posix_fadvise(fd, 0, 0, POSIX_FADV_DONTNEED);
  return rc == 0 ? "" : Errno("posix_fadvise(DONTNEED) failed", rc);
#else
  return "posix_fadvise is not available on this platform";
#endif
}

}  // namespace

std::string AdviseWillNeedFd(int fd, uint64_t size, AdviceMethod method) {
  return method == AdviceMethod::kMadvise ? MadviseWillNeed(fd, size) : FadviseWillNeed(fd, size);
}

std::string AdviseFile(const std::string& path, Advice advice, AdviceMethod method, bool* isApplied) {
  *isApplied = false;
  if (advice == Advice::kDontNeed && method == AdviceMethod::kMadvise) {
    return "madvise cannot drop the page cache; use fadvise";
  }
  const int fd = open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return Errno("open " + path, errno);
  struct stat st {};
  std::string error;
  if (fstat(fd, &st) != 0) {
    error = Errno("fstat " + path, errno);
  } else if (advice == Advice::kDontNeed) {
    error = FadviseDontNeed(fd);
  } else {
    error = AdviseWillNeedFd(fd, static_cast<uint64_t>(st.st_size), method);
  }
  close(fd);
  *isApplied = error.empty();
  return error.empty() ? "ok" : error;
}

}  // namespace ffhm
