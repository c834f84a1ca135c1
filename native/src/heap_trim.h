#pragma once

#include <string>

namespace ffhm {

// Hands the C heap's free pages back to the system (glibc malloc_trim(0)): after a session
// build the allocator keeps the freed build buffers resident. Returns whether anything was
// released; `reason` says what happened or why it is not available on this platform.
bool TrimHeap(std::string* reason);

}  // namespace ffhm
