#include "ort_api.h"

#include <dlfcn.h>

#include <mutex>

namespace ffhm {
namespace ort {
namespace {

// OrtApiBase: GetApi(version) then GetVersionString(), both without ORT_API_CALL off Windows.
struct ApiBase {
  const void* (*GetApi)(uint32_t version);
  const char* (*GetVersionString)();
};
using GetApiBaseFn = const ApiBase* (*)();

constexpr int kLogLevelError = 3;

std::mutex gMutex;
Api* gApi = nullptr;
std::string gPath;

void Load(Api* api, const std::string& path) {
  void* handle = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (handle == nullptr) {
    const char* error = dlerror();
    api->reason = "cannot load " + path + ": " + (error != nullptr ? error : "dlopen failed");
    return;
  }
  auto getApiBase = reinterpret_cast<GetApiBaseFn>(dlsym(handle, "OrtGetApiBase"));
  if (getApiBase == nullptr) {
    api->reason = path + " has no OrtGetApiBase: not an ONNX Runtime library";
    return;
  }
  const ApiBase* base = getApiBase();
  api->version = base->GetVersionString != nullptr ? base->GetVersionString() : "";
  api->table = static_cast<const void* const*>(base->GetApi(kApiVersion));
  if (api->table == nullptr) {
    api->reason = "ONNX Runtime " + api->version + " does not offer API version " + std::to_string(kApiVersion);
    return;
  }
  const std::string error = api->Call<CreateEnvFn>(kCreateEnv, kLogLevelError, "first-frame", &api->env);
  if (!error.empty()) {
    api->table = nullptr;
    api->reason = "ONNX Runtime refused to create its environment: " + error;
  }
}

}  // namespace

std::string Api::Take(Status* status) const {
  if (status == nullptr) return "";
  const char* message = At<GetErrorMessageFn>(kGetErrorMessage)(status);
  std::string text = message != nullptr ? message : "unknown ONNX Runtime error";
  At<ReleaseFn<Status>>(kReleaseStatus)(status);
  return text;
}

const Api& LoadApi(const std::string& libraryPath) {
  std::lock_guard<std::mutex> lock(gMutex);
  if (gApi == nullptr) {
    gApi = new Api();  // process-wide, never freed: sessions in any thread may use it until exit
    gPath = libraryPath;
    Load(gApi, libraryPath);
  } else if (libraryPath != gPath) {
    static Api refused;
    refused.reason = "ONNX Runtime is already loaded from " + gPath + " in this process";
    return refused;
  }
  return *gApi;
}

}  // namespace ort
}  // namespace ffhm
