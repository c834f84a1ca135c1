// What listing says about a GGUF until this build can convert one: what the file is (or why it is
// not a model First Frame can read), and that running it needs the fused ONNX graph writer.

import { GgufModelError } from './gguf-architecture';
import { GgufFormatError } from './gguf-header';
import { inspectGguf } from './gguf-model';
import { storageLabelOf } from './storage-plan';
import { GgufTokenizerError } from './gguf-tokenizer';

/** The reason a GGUF file is listed but cannot load, in words (never throws on a bad file). */
export function ggufListingProblem(file: string): string {
  try {
    const model = inspectGguf(file);
    const { dims } = model;
    return (
      `is a GGUF model (${model.architecture}, ${model.fileType}, ${dims.numLayers} layers, ` +
      `${dims.vocabSize}-token vocabulary, would be stored as ${storageLabelOf(model.plan)}); ` +
      'running GGUF files needs the fused ONNX graph writer, which this build does not have yet'
    );
  } catch (error) {
    if (
      error instanceof GgufFormatError ||
      error instanceof GgufModelError ||
      error instanceof GgufTokenizerError
    )
      return `is a GGUF file that cannot be used: ${error.message}`;
    const code = (error as NodeJS.ErrnoException).code;
    return `is a GGUF file that cannot be read (${code ?? (error as Error).message})`;
  }
}
