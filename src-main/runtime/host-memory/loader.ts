/**
 * Picks the HostMemory implementation: the native addon when it is built and loads, else the
 * pure-TypeScript fallback with the reason. FF_HOST_MEMORY=fallback forces the fallback.
 */
import { createFallbackHostMemory } from './fallback';
import { createNativeHostMemory } from './native';
import { loadNativeAddon } from './native-addon';
import type { HostMemory } from './types';

/** forceFallback: skip the addon (tests, diagnosis); addonPath: load exactly this .node. */
export interface LoadHostMemoryOptions {
  forceFallback?: boolean;
  addonPath?: string;
}

/** A fresh HostMemory; never throws (a missing or broken addon becomes the fallback's reason). */
export function loadHostMemory(options: LoadHostMemoryOptions = {}): HostMemory {
  if (options.forceFallback) return createFallbackHostMemory('native addon disabled (forced fallback)');
  if (process.env.FF_HOST_MEMORY === 'fallback')
    return createFallbackHostMemory('native addon disabled (FF_HOST_MEMORY=fallback)');
  const loaded = loadNativeAddon(options.addonPath);
  return loaded.addon
    ? createNativeHostMemory(loaded.addon, loaded.path)
    : createFallbackHostMemory(loaded.reason);
}

let shared: HostMemory | null = null;

/** The process-wide HostMemory (loaded once, on first use). */
export function getHostMemory(): HostMemory {
  shared ??= loadHostMemory();
  return shared;
}
