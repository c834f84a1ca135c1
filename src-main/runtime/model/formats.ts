/**
 * The model formats this build loads, in words a user can match against what they downloaded:
 * the "Add a model" panel and the app's status list them from here.
 */
export const LOADABLE_FORMATS: readonly { name: string; detail: string }[] = [
  {
    name: 'Hugging Face ONNX folder',
    detail:
      'a folder as downloaded, with config.json, tokenizer.json, tokenizer_config.json and onnx/model*.onnx (transformers.js / onnx-community, Optimum exports, merged decoders); each ONNX file is a variant (fp16, q8, q4…)',
  },
  {
    name: 'onnxruntime-genai folder',
    detail:
      "what its model builder writes and Microsoft's -onnx releases ship: genai_config.json, the decoder's .onnx and .onnx.data, tokenizer.json",
  },
  {
    name: 'GGUF file',
    detail:
      'a .gguf as llama.cpp, Ollama and LM Studio use (llama, mistral, qwen2, qwen3; F32/F16/BF16, Q8_0, Q4_0, Q4_1, Q5_0, Q5_1, Q2_K–Q6_K), or a split -00001-of-0000N.gguf set: converted to ONNX once on its first load, the file only read',
  },
];
