// The grouped attention kernel (grouped_attention.h) registered with ONNX Runtime as a custom
// operator named com.microsoft:GroupQueryAttention, for float and float16: ONNX Runtime looks a
// session's custom kernels up before its own, so the same graph (and the same file the
// onnxruntime-node fallback runs) computes its attention here on the bound run path.
#pragma once

#include <string>

#include "ort_api.h"

namespace ffhm {
namespace ort {

// Adds the operator's domain to `options`: "" when added, else why not (the session then runs
// ONNX Runtime's own kernel). The domain is built once per process and never freed, as sessions
// built with it may live until exit.
std::string AddGroupedAttention(const Api& api, SessionOptions* options);

}  // namespace ort
}  // namespace ffhm
