import onnxProto from 'onnx-proto';
import * as ort from 'onnxruntime-node';
import type { ExecutionProvider, ProviderAvailability } from './providers';
import { EXECUTION_PROVIDERS, providerUnavailableReason } from './providers';
import { sessionOptionsOf } from './session-options';

/** The smallest graph a provider must accept: y = x + x on one float. */
function probeModel(): Uint8Array {
  const { onnx } = onnxProto;
  const value = (name: string) => ({
    name,
    type: { tensorType: { elemType: 1, shape: { dim: [{ dimValue: 1 }] } } },
  });
  const model = onnx.ModelProto.create({
    irVersion: 8,
    opsetImport: [{ domain: '', version: 17 }],
    graph: {
      name: 'probe',
      node: [{ opType: 'Add', input: ['x', 'x'], output: ['y'] }],
      input: [value('x')],
      output: [value('y')],
    },
  });
  return onnx.ModelProto.encode(model).finish();
}

/**
 * Tries each provider on a one-node graph, with a run (some providers only fail there), built
 * with the options a slot's session gets (one thread, no spinning). Runs in the probe's own
 * process (probe-process.ts): a GPU runtime prints native errors and may block a while.
 */
export async function probeProviders(
  providers: readonly ExecutionProvider[] = EXECUTION_PROVIDERS,
): Promise<ProviderAvailability[]> {
  const bytes = probeModel();
  const results: ProviderAvailability[] = [];
  for (const provider of providers) {
    try {
      const options = sessionOptionsOf({ numThreads: 1, canSpinThreads: false, provider });
      const session = await ort.InferenceSession.create(bytes, options);
      await session.run({ x: new ort.Tensor('float32', Float32Array.of(1), [1]) });
      await session.release();
      results.push({ provider, isAvailable: true, reason: null });
    } catch (error) {
      results.push({
        provider,
        isAvailable: false,
        reason: providerUnavailableReason(provider, error as Error),
      });
    }
  }
  return results;
}
