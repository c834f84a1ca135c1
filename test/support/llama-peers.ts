/**
 * llama.cpp as an oracle (node-llama-cpp and koffi in .cache/peers, `npm run peers:install`).
 * Tests that need it skip with this reason when it is not installed; FF_REQUIRE_PEERS=1 (set by
 * CI, which installs the peers) turns the skip into a failure, so CI never passes by skipping.
 */
import { afterAll, beforeAll } from 'vitest';
import { loadLlamaCpp } from '../../bench/peers/llama-cpp';
import type { LlamaCppEngine } from '../../bench/peers/llama-cpp';
import { loadLlamaFfi } from '../../bench/peers/llama-ffi';
import type { LlamaFfi } from '../../bench/peers/llama-ffi';

const loaded = loadLlamaFfi();

/** llama.cpp's functions, or null when the peers are not installed. */
export const llamaFfi: LlamaFfi | null = 'error' in loaded ? null : loaded;

/** null when the peers loaded; else why the llama.cpp oracle tests are skipped. */
export const peersSkipReason: string | null = 'error' in loaded ? loaded.error : null;

if (peersSkipReason && process.env.FF_REQUIRE_PEERS === '1')
  throw new Error(`FF_REQUIRE_PEERS=1 but ${peersSkipReason}`);
if (peersSkipReason) console.warn(`[llama.cpp oracle] skipping: ${peersSkipReason}`);

/** llama.cpp's engine for the calling describe block: loaded before its tests, closed after them. */
export function llamaCppForSuite(): () => LlamaCppEngine {
  let engine: LlamaCppEngine | null = null;
  beforeAll(async () => {
    const loaded = await loadLlamaCpp();
    if ('error' in loaded) throw new Error(loaded.error);
    engine = loaded;
  }, 120_000);
  afterAll(async () => {
    await engine?.close();
  });
  return () => engine!;
}
