/**
 * llama.cpp as an oracle (node-llama-cpp and koffi in .cache/peers, `npm run peers:install`).
 * Tests that need it skip with this reason when it is not installed; FF_REQUIRE_PEERS=1 (set by
 * CI, which installs the peers) turns the skip into a failure, so CI never passes by skipping.
 */
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
