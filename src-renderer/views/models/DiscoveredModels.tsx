/**
 * Models already on this machine (Ollama, LM Studio, the Hugging Face cache), found only when
 * the user turns discovery on. The service does not list them yet: this is where that list and
 * its opt-in switch go once the contract has them; until then nothing is claimed.
 */
export function DiscoveredModels() {
  return null;
}
