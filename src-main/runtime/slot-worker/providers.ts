import { z } from 'zod';

/**
 * Execution providers a slot may ask ONNX Runtime for, and the policy when one is not there.
 * `cpu` is bundled everywhere; `webgpu` is bundled in onnxruntime-node 1.30 but needs a
 * Vulkan/D3D12/Metal adapter; `cuda` needs provider files the install skips (see README).
 */
export const EXECUTION_PROVIDERS = ['cpu', 'webgpu', 'cuda'] as const;

/** One execution provider's name. */
export type ExecutionProvider = (typeof EXECUTION_PROVIDERS)[number];

/** Whether a provider can run a session on this machine, and if not, why (`reason`, null when it can). */
export const ProviderAvailabilitySchema = z.object({
  provider: z.enum(EXECUTION_PROVIDERS),
  isAvailable: z.boolean(),
  reason: z.string().nullable(),
});
/** One provider's availability (ProviderAvailabilitySchema). */
export type ProviderAvailability = z.infer<typeof ProviderAvailabilitySchema>;

/** What a slot asks for: a provider, and whether it may fall back to cpu when that one fails. */
export interface ProviderChoice {
  provider: ExecutionProvider;
  isCpuFallbackAllowed: boolean;
}

/** The default choice: cpu, which needs no fallback. */
export const CPU_PROVIDER: ProviderChoice = { provider: 'cpu', isCpuFallbackAllowed: false };

/** Which provider a slot's session runs on, and why not the one asked for (null when it is). */
export interface ProviderOutcome {
  requested: ExecutionProvider;
  used: ExecutionProvider;
  /** e.g. "webgpu: no adapter" when the requested provider could not start. */
  unavailableReason: string | null;
}

/**
 * A short reason from ONNX Runtime's error when a provider cannot start: the messages it gives
 * are long and name internal files, so the common cases get the words a user needs.
 */
export function providerUnavailableReason(provider: ExecutionProvider, error: Error): string {
  const message = error.message;
  if (provider === 'webgpu' && /adapter/i.test(message)) return 'webgpu: no adapter';
  if (provider === 'cuda' && /providers_cuda|providers_shared|shared (?:object|library)/i.test(message))
    return 'cuda: provider files not installed (see README, GPU)';
  if (/not (?:supported|available|registered)|unknown|backend/i.test(message) && !/adapter/i.test(message))
    return `${provider}: not in this onnxruntime-node build (${firstLine(message)})`;
  return `${provider}: ${firstLine(message)}`;
}

function firstLine(text: string): string {
  return (text.split('\n')[0] ?? text).slice(0, 200);
}

/**
 * Tries `choice.provider`, then cpu when the choice allows it. `attempt` builds whatever needs
 * the provider (a session); its error, turned into a reason, is kept when cpu takes over, and
 * thrown (with that reason) when it may not.
 */
export async function withProvider<T>(
  choice: ProviderChoice,
  attempt: (provider: ExecutionProvider) => Promise<T>,
): Promise<{ value: T; outcome: ProviderOutcome }> {
  try {
    const value = await attempt(choice.provider);
    return { value, outcome: { requested: choice.provider, used: choice.provider, unavailableReason: null } };
  } catch (error) {
    if (choice.provider === 'cpu') throw error;
    const reason = providerUnavailableReason(choice.provider, error as Error);
    if (!choice.isCpuFallbackAllowed)
      throw new Error(`${reason}; falling back to cpu is not allowed for this slot`);
    const value = await attempt('cpu');
    return { value, outcome: { requested: choice.provider, used: 'cpu', unavailableReason: reason } };
  }
}
