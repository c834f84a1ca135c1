#include "residency.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <vector>

#include "memlock.h"

namespace ffhm {
namespace {

// Files are mapped and inspected in windows so a huge model never needs one giant mapping.
constexpr uint64_t kWindowBytes = 1ULL << 30;

#if defined(__APPLE__)
using MincoreVec = char;
#else
using MincoreVec = unsigned char;
#endif

std::string Errno(const std::string& what) { return what + ": " + std::strerror(errno); }

// Counts resident pages of a page-aligned range.
bool CountPages(void* alignedAddr, size_t len, uint64_t* numResident, std::string* error) {
  const size_t pageSize = PageSize();
  const size_t numPages = (len + pageSize - 1) / pageSize;
  std::vector<MincoreVec> vec(numPages);
  if (mincore(alignedAddr, len, vec.data()) != 0) {
    *error = Errno("mincore failed");
    return false;
  }
  uint64_t count = 0;
  for (MincoreVec v : vec) count += (v & 1) ? 1 : 0;
  *numResident += count;
  return true;
}

class FileHandle {
 public:
  explicit FileHandle(const std::string& path) : fd_(open(path.c_str(), O_RDONLY | O_CLOEXEC)) {}
  ~FileHandle() {
    if (fd_ >= 0) close(fd_);
  }
  int fd() const { return fd_; }

 private:
  int fd_;
};

bool FileSize(const FileHandle& file, const std::string& path, uint64_t* size, std::string* error) {
  if (file.fd() < 0) {
    *error = Errno("open " + path);
    return false;
  }
  struct stat st {};
  if (fstat(file.fd(), &st) != 0) {
    *error = Errno("fstat " + path);
    return false;
  }
  *size = static_cast<uint64_t>(st.st_size);
  return true;
}

// Maps each window of the file read-only and calls fn(addr, len); stops at the first failure.
template <typename Fn>
bool ForEachWindow(int fd, uint64_t size, std::string* error, Fn fn) {
  for (uint64_t offset = 0; offset < size; offset += kWindowBytes) {
    const size_t len = static_cast<size_t>(std::min(kWindowBytes, size - offset));
    void* addr = mmap(nullptr, len, PROT_READ, MAP_SHARED, fd, static_cast<off_t>(offset));
    if (addr == MAP_FAILED) {
      *error = Errno("mmap failed");
      return false;
    }
    const bool isOk = fn(addr, len);
    munmap(addr, len);
    if (!isOk) return false;
  }
  return true;
}

}  // namespace

bool CountResidentRange(void* addr, size_t len, ResidencyCount* out, std::string* error) {
  const uintptr_t pageSize = PageSize();
  *out = ResidencyCount{};
  out->pageSize = pageSize;
  out->totalBytes = len;
  if (addr == nullptr || len == 0) return true;
  const uintptr_t start = reinterpret_cast<uintptr_t>(addr) / pageSize * pageSize;
  const size_t span = static_cast<size_t>(reinterpret_cast<uintptr_t>(addr) + len - start);
  out->numPages = (span + pageSize - 1) / pageSize;
  if (!CountPages(reinterpret_cast<void*>(start), span, &out->numResidentPages, error)) return false;
  out->residentBytes = std::min<uint64_t>(out->numResidentPages * pageSize, len);
  return true;
}

bool CountFileResidency(const std::string& path, ResidencyCount* out, std::string* error) {
  FileHandle file(path);
  uint64_t size = 0;
  if (!FileSize(file, path, &size, error)) return false;
  const uint64_t pageSize = PageSize();
  *out = ResidencyCount{};
  out->pageSize = pageSize;
  out->totalBytes = size;
  out->numPages = (size + pageSize - 1) / pageSize;
  uint64_t numResident = 0;
  const bool isOk = ForEachWindow(file.fd(), size, error, [&](void* addr, size_t len) {
    return CountPages(addr, len, &numResident, error);
  });
  if (!isOk) return false;
  out->numResidentPages = numResident;
  // Only the last page can be partial; count it as its real bytes when resident.
  out->residentBytes = std::min<uint64_t>(numResident * pageSize, size);
  return true;
}

}  // namespace ffhm
