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
];
