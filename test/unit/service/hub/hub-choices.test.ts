import { describe, expect, it } from 'vitest';
import { modelChoicesOf } from '../../../../src-main/service/hub/hub-choices';

describe("a repository's choices", () => {
  it('offers each GGUF model file with its quantization, a split set once, and counts the rest', () => {
    const file = (path: string, numBytes: number) => ({
      path,
      numBytes,
      check: { kind: 'sha256' as const, hex: 'a'.repeat(64) },
    });
    const { choices, numOtherFiles } = modelChoicesOf('someone/M-GGUF', [
      file('M-Q4_K_M.gguf', 10),
      file('M-IQ3_XXS.gguf', 8),
      file('m.BF16.gguf', 30),
      file('Q8_0/M-Q8_0-00001-of-00002.gguf', 5),
      file('Q8_0/M-Q8_0-00002-of-00002.gguf', 6),
      file('M-Q2_K-00001-of-00002.gguf', 1), // its second part is missing: not offered
      file('mmproj-M-f16.gguf', 3),
      file('README.md', 1),
    ]);
    expect(choices.map((c) => [c.filePath, c.quant, c.files.length, c.numBytes])).toEqual([
      ['M-Q4_K_M.gguf', 'Q4_K_M', 1, 10],
      ['M-IQ3_XXS.gguf', 'IQ3_XXS', 1, 8],
      ['m.BF16.gguf', 'BF16', 1, 30],
      ['Q8_0/M-Q8_0-00001-of-00002.gguf', 'Q8_0', 2, 11],
    ]);
    expect(numOtherFiles).toBe(3);
  });
});

describe('an ONNX repository', () => {
  const file = (path: string, numBytes = 1) => ({ path, numBytes, check: null });
  it('offers each variant with its external data and the folder files, into a folder named after the repository', () => {
    const { choices, numOtherFiles } = modelChoicesOf('onnx-community/Tiny-ONNX', [
      file('config.json'),
      file('tokenizer.json'),
      file('tokenizer_config.json'),
      file('onnx/model.onnx', 10),
      file('onnx/model.onnx_data', 100),
      file('onnx/model_q4.onnx', 5),
      file('onnx/model_q4.onnx_data', 30),
      file('onnx/vision_encoder.onnx'),
      file('README.md'),
    ]);
    expect(choices.map((c) => [c.modelName, c.kind, c.primary, c.numBytes])).toEqual([
      ['Tiny-ONNX:fp32', 'onnx', 'Tiny-ONNX/onnx/model.onnx', 113],
      ['Tiny-ONNX:q4', 'onnx', 'Tiny-ONNX/onnx/model_q4.onnx', 38],
    ]);
    expect(choices[1]!.files.map((f) => f.target)).toEqual([
      'Tiny-ONNX/config.json',
      'Tiny-ONNX/tokenizer.json',
      'Tiny-ONNX/tokenizer_config.json',
      'Tiny-ONNX/onnx/model_q4.onnx',
      'Tiny-ONNX/onnx/model_q4.onnx_data',
    ]);
    expect(numOtherFiles).toBe(2);
  });

  it('offers each onnxruntime-genai folder whole, flattened into a folder of its own', () => {
    const { choices } = modelChoicesOf('microsoft/Phi-ONNX', [
      file('cpu-int4/genai_config.json'),
      file('cpu-int4/model.onnx'),
      file('cpu-int4/model.onnx.data'),
      file('cpu-int4/tokenizer.json'),
    ]);
    expect(choices.map((c) => [c.modelName, c.kind, c.files.map((f) => f.target)])).toEqual([
      [
        'Phi-ONNX-cpu-int4:genai',
        'genai',
        [
          'Phi-ONNX-cpu-int4/genai_config.json',
          'Phi-ONNX-cpu-int4/model.onnx',
          'Phi-ONNX-cpu-int4/model.onnx.data',
          'Phi-ONNX-cpu-int4/tokenizer.json',
        ],
      ],
    ]);
  });
});
