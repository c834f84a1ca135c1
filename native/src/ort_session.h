// A session of ONNX Runtime's C API driven through one I/O binding: the caller binds its own
// memory (typed arrays) as inputs and outputs, so a K/V buffer can be both a layer's past input
// and its present output and ONNX Runtime writes the new columns into it in place.
#pragma once

#include <napi.h>

namespace ffhm {

// Registers ortLoad, ortCreateSession and the BoundSession class on `exports`.
void InitOrtBinding(Napi::Env env, Napi::Object exports);

}  // namespace ffhm
