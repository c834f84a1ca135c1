#include "cuda_register.h"

#include <dlfcn.h>

#include <mutex>
#include <string>

namespace ffhm {
namespace {

// cudaError_t is an int-sized enum; cudaHostRegisterDefault = 0.
using HostRegisterFn = int (*)(void*, size_t, unsigned int);
using HostUnregisterFn = int (*)(void*);
using ErrorStringFn = const char* (*)(int);
using GetDeviceCountFn = int (*)(int*);

struct CudaRuntime {
  bool isPresent = false;
  std::string reason = "cuda runtime not found";
  HostRegisterFn hostRegister = nullptr;
  HostUnregisterFn hostUnregister = nullptr;
  ErrorStringFn errorString = nullptr;
};

const CudaRuntime& LoadCudaRuntime() {
  static CudaRuntime runtime;
  static std::once_flag once;
  std::call_once(once, [] {
    const char* names[] = {"libcudart.so", "libcudart.so.13", "libcudart.so.12", "libcudart.so.11.0",
                           "libcudart.dylib"};
    void* handle = nullptr;
    for (const char* name : names) {
      handle = dlopen(name, RTLD_NOW | RTLD_LOCAL);
      if (handle != nullptr) break;
    }
    if (handle == nullptr) return;
    runtime.hostRegister = reinterpret_cast<HostRegisterFn>(dlsym(handle, "cudaHostRegister"));
    runtime.hostUnregister = reinterpret_cast<HostUnregisterFn>(dlsym(handle, "cudaHostUnregister"));
    runtime.errorString = reinterpret_cast<ErrorStringFn>(dlsym(handle, "cudaGetErrorString"));
    auto getDeviceCount = reinterpret_cast<GetDeviceCountFn>(dlsym(handle, "cudaGetDeviceCount"));
    if (runtime.hostRegister == nullptr || runtime.hostUnregister == nullptr || getDeviceCount == nullptr) {
      runtime.reason = "cuda runtime found but cudaHostRegister is missing";
      return;
    }
    // A toolkit without a driver or device is common (build machines): report it as absent.
    int numDevices = 0;
    const int code = getDeviceCount(&numDevices);
    if (code != 0 || numDevices == 0) {
      const char* text = code != 0 && runtime.errorString != nullptr ? runtime.errorString(code) : "no device";
      runtime.reason = "cuda runtime found but no usable device: " + std::string(text != nullptr ? text : "error");
      return;
    }
    runtime.isPresent = true;
    runtime.reason = "cuda runtime loaded, " + std::to_string(numDevices) + " device(s)";
  });
  return runtime;
}

}  // namespace

bool IsCudaAvailable(std::string* reason) {
  const CudaRuntime& runtime = LoadCudaRuntime();
  if (reason != nullptr) *reason = runtime.reason;
  return runtime.isPresent;
}

std::string CudaRegister(void* addr, size_t len, bool* isRegistered) {
  *isRegistered = false;
  const CudaRuntime& runtime = LoadCudaRuntime();
  if (!runtime.isPresent) return runtime.reason;
  if (len == 0) return "empty range: nothing to register";
  const int code = runtime.hostRegister(addr, len, 0);
  if (code != 0) {
    const char* text = runtime.errorString != nullptr ? runtime.errorString(code) : nullptr;
    return "cudaHostRegister failed: " + std::string(text != nullptr ? text : "error") + " (" +
           std::to_string(code) + ")";
  }
  *isRegistered = true;
  return "registered";
}

void CudaUnregister(void* addr) {
  const CudaRuntime& runtime = LoadCudaRuntime();
  if (runtime.isPresent) runtime.hostUnregister(addr);
}

}  // namespace ffhm
