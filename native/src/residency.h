// Page residency (mincore) of a memory range or of a file via read-only mappings.
#pragma once
#include <cstddef>
#include <cstdint>
#include <string>

namespace ffhm {

// residentBytes never exceeds totalBytes (a file's last partial page counts its real bytes).
struct ResidencyCount {
  uint64_t residentBytes = 0;
  uint64_t totalBytes = 0;
  uint64_t numResidentPages = 0;
  uint64_t numPages = 0;
  uint64_t pageSize = 0;
};

bool CountResidentRange(void* addr, size_t len, ResidencyCount* out, std::string* error);
bool CountFileResidency(const std::string& path, ResidencyCount* out, std::string* error);

}  // namespace ffhm
