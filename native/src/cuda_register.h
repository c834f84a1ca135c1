// Optional cudaHostRegister through a runtime-loaded libcudart. Absent CUDA is the
// normal case: it is reported as "cuda runtime not found", never an error.
#pragma once
#include <cstddef>
#include <string>

namespace ffhm {

// Whether libcudart loaded and sees a device (checked once per process); if not, why.
bool IsCudaAvailable(std::string* reason);

// Registers [addr, addr+len) with CUDA as page-locked host memory. Returns "registered"
// or the reason it was not; sets *isRegistered accordingly.
std::string CudaRegister(void* addr, size_t len, bool* isRegistered);

// Undoes CudaRegister; safe to call only on a range it registered.
void CudaUnregister(void* addr);

}  // namespace ffhm
