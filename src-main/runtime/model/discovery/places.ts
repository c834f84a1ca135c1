// The usual places other programs keep models on this machine, and the environment variables
// that move them (as each program reads them).

import { readFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { DiscoveredSource } from '../model-sources';

/** Where discovery looks from: the home folder and the variables that move the stores. */
export interface DiscoveryEnvironment {
  homeDir: string;
  /** OLLAMA_MODELS, HF_HUB_CACHE, HUGGINGFACE_HUB_CACHE, HF_HOME, XDG_CACHE_HOME as set. */
  env: Readonly<Record<string, string | undefined>>;
  /** Stores outside the home a system-wide install uses (Ollama's Linux service user). */
  systemOllamaDirs: string[];
}

/** One folder discovery reads, and whose store it is. */
export interface DiscoveryPlace {
  source: DiscoveredSource;
  path: string;
}

/** This process's home, environment and the system-wide stores of this platform. */
export function defaultDiscoveryEnvironment(): DiscoveryEnvironment {
  return {
    homeDir: os.homedir(),
    env: process.env,
    systemOllamaDirs: process.platform === 'linux' ? ['/usr/share/ollama/.ollama/models'] : [],
  };
}

/** LM Studio records a moved home folder in this file (its whole content is the path). */
const LM_STUDIO_POINTER = '.lmstudio-home-pointer';
const MAX_POINTER_BYTES = 4096;

/**
 * Every place to look, in each store's own order, without duplicates. Reads nothing but LM
 * Studio's pointer file, and that only when `canRead` (discovery on).
 */
export function usualPlaces(environment: DiscoveryEnvironment, canRead: boolean): DiscoveryPlace[] {
  const { homeDir, env } = environment;
  const home = (...parts: string[]) => path.join(homeDir, ...parts);
  const set = (name: string) => (env[name]?.trim() ? path.resolve(env[name]!.trim()) : null);
  const lmHome = canRead ? lmStudioHome(home(LM_STUDIO_POINTER)) : null;
  const cacheHome = set('XDG_CACHE_HOME') ?? home('.cache');
  const hfHub =
    set('HF_HUB_CACHE') ??
    set('HUGGINGFACE_HUB_CACHE') ??
    path.join(set('HF_HOME') ?? path.join(cacheHome, 'huggingface'), 'hub');
  const candidates: [DiscoveredSource, string | null][] = [
    ['ollama', set('OLLAMA_MODELS')],
    ['ollama', home('.ollama', 'models')],
    ...environment.systemOllamaDirs.map((dir) => ['ollama', dir] as [DiscoveredSource, string]),
    ['lm-studio', lmHome ? path.join(lmHome, 'models') : null],
    ['lm-studio', home('.lmstudio', 'models')],
    ['lm-studio', home('.cache', 'lm-studio', 'models')],
    ['hf-cache', hfHub],
  ];
  const places: DiscoveryPlace[] = [];
  for (const [source, dir] of candidates)
    if (dir && !places.some((p) => p.path === dir)) places.push({ source, path: dir });
  return places;
}

/** The folder LM Studio's pointer file names, or null when there is none (or it is not a path). */
function lmStudioHome(pointer: string): string | null {
  let text: string;
  try {
    const bytes = readFileSync(pointer);
    if (bytes.length > MAX_POINTER_BYTES) return null;
    text = bytes.toString('utf8').trim();
  } catch {
    return null; // no pointer: LM Studio keeps its home at ~/.lmstudio, which is looked at anyway
  }
  return path.isAbsolute(text) && !text.includes('\n') ? text : null;
}
