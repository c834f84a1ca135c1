// readFileInto(path, options) → Promise<{buffer, lockMs, adviseMs, readMs}>: reads a whole
// file into a (locked when asked and allowed) host block with large preads, off the JS thread.
#pragma once
#include <napi.h>

namespace ffhm {

Napi::Value ReadFileInto(const Napi::CallbackInfo& info);

}  // namespace ffhm
