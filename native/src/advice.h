// Page-cache hints for a whole file: WILLNEED (posix_fadvise or madvise) and DONTNEED.
#pragma once
#include <cstdint>
#include <string>

namespace ffhm {

enum class Advice { kWillNeed, kDontNeed };
enum class AdviceMethod { kFadvise, kMadvise };

// Linux caps one WILLNEED at max(read_ahead_kb, max_sectors_kb) bytes (8 MiB here): a single
// whole-file call warms only the file's head. So WILLNEED is issued in windows this big
// (≤ the smallest common read-ahead size) across the whole file.
constexpr uint64_t kWillNeedWindowBytes = 128 * 1024;

// WILLNEED over [0, size) of an open file, window by window. Empty string = ok.
std::string AdviseWillNeedFd(int fd, uint64_t size, AdviceMethod method);

// Applies the hint to the whole file at `path`. Returns "ok" or why not; sets *isApplied.
// DONTNEED flushes dirty pages first (fdatasync): the kernel never drops dirty pages.
std::string AdviseFile(const std::string& path, Advice advice, AdviceMethod method, bool* isApplied);

}  // namespace ffhm
