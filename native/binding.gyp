{
  # First Frame host-memory addon. N-API only (NAPI_VERSION pinned) so one build
  # loads in Node and in Electron without a rebuild. Built by `node native/build.mjs`
  # (the root install script); a failed build leaves the pure-TS fallback in charge.
  # -falign-loops=64: the grouped attention kernel's hot loops moved by 10% with their alignment.
  "targets": [
    {
      "target_name": "ff_host_memory",
      "sources": [
        "src/addon.cc",
        "src/advice.cc",
        "src/host_block.cc",
        "src/native_buffer.cc",
        "src/read_file.cc",
        "src/residency.cc",
        "src/memlock.cc",
        "src/heap_trim.cc",
        "src/cuda_register.cc",
        "src/ort_api.cc",
        "src/ort_session.cc",
        "src/grouped_attention.cc",
        "src/grouped_attention_op.cc"
      ],
      "include_dirs": ["<!(node -p \"require('node-addon-api').include_dir\")"],
      "defines": [
        "NAPI_VERSION=8",
        "NODE_ADDON_API_DISABLE_DEPRECATED",
        "NAPI_CPP_EXCEPTIONS"
      ],
      "cflags!": ["-fno-exceptions"],
      "cflags_cc!": ["-fno-exceptions"],
      "cflags_cc": ["-std=c++17", "-Wall", "-Wextra", "-Wno-psabi", "-O2", "-falign-loops=64"],
      "libraries": ["-ldl"],
      "xcode_settings": {
        "GCC_ENABLE_CPP_EXCEPTIONS": "YES",
        "CLANG_CXX_LANGUAGE_STANDARD": "c++17"
      },
      "conditions": [
        ["OS=='win'", { "defines": ["FF_HOST_MEMORY_UNSUPPORTED"] }]
      ]
    }
  ]
}
