// Where a download's files are written while they arrive and how the model is put into the
// models folder once all of them did. The catalogue lists what the folder holds, so nothing is
// put there before it is whole: a GGUF arrives as `<file>.part` beside where it goes (not a
// `.gguf`, so never listed), a folder model in a hidden `.<folder>.<variant>.part` folder
// (names starting with a dot are never listed), moved into place at the end.

import { existsSync } from 'node:fs';
import { mkdir, rename, rm } from 'node:fs/promises';
import path from 'node:path';
import type { HubModelChoice } from './hub-choices';

/** A choice's files: where each is written while it arrives, and where it goes. */
export interface Placement {
  parts: string[];
  targets: string[];
  /** The hidden folder a folder model arrives in, or null for a GGUF. */
  staging: string | null;
  /** The folder the model makes, or null for a GGUF. */
  folder: string | null;
  /** The file whose arrival makes the model listable (moved last). */
  primary: string;
}

/** Where `choice` arrives and goes in `modelsDir`. */
export function placementOf(choice: HubModelChoice, modelsDir: string): Placement {
  const inFolder = (relative: string) => {
    const full = path.join(modelsDir, ...relative.split('/'));
    // The choices are built from plain paths (hub-client.ts); this holds the line regardless.
    if (!full.startsWith(path.join(modelsDir, path.sep)))
      throw new Error(`${relative} would lie outside the models folder`);
    return full;
  };
  const targets = choice.files.map((f) => inFolder(f.target));
  const primary = inFolder(choice.primary);
  if (choice.folderName === null)
    return { parts: targets.map((t) => `${t}.part`), targets, staging: null, folder: null, primary };
  const staging = path.join(modelsDir, `.${choice.folderName}.${choice.quant ?? choice.kind}.part`);
  const parts = choice.files.map((f) => path.join(staging, ...f.target.split('/').slice(1)));
  return { parts, targets, staging, folder: inFolder(choice.folderName), primary };
}

/** Makes the folders the parts are written into. */
export async function prepareParts(placement: Placement): Promise<void> {
  for (const part of placement.parts) await mkdir(path.dirname(part), { recursive: true });
}

/**
 * Moves a whole download into place: a new folder at once (one rename), files into a folder that
 * is there already (another variant of the model) with the primary file last; a GGUF set's later
 * shards before its first, which is what lists it.
 */
export async function placeModel(placement: Placement): Promise<void> {
  if (placement.staging !== null && placement.folder !== null && !existsSync(placement.folder)) {
    await rename(placement.staging, placement.folder);
    return;
  }
  const moves = placement.parts.map((part, i) => ({ part, target: placement.targets[i]! }));
  moves.sort((a, b) => Number(a.target === placement.primary) - Number(b.target === placement.primary));
  for (const { part, target } of moves) {
    await mkdir(path.dirname(target), { recursive: true });
    await rename(part, target);
  }
  if (placement.staging !== null) await rm(placement.staging, { recursive: true, force: true });
}

/** Removes what a download wrote and did not place (its parts, its staging folder). */
export async function removeParts(placement: Placement): Promise<void> {
  if (placement.staging !== null) await rm(placement.staging, { recursive: true, force: true });
  else for (const part of placement.parts) await rm(part, { force: true });
}
