// Where each downloaded model came from (`someone/Model-GGUF at 0123abc on huggingface.co`), kept
// in `<data>/model-origins.json` by the model's path, so the lists can say it after a restart.
// A model copied in by hand has no entry; a deleted one's entry is dropped.

import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { z } from 'zod';

const OriginsSchema = z.record(z.string(), z.string().max(1000));

/** The origins file of a data folder; every write replaces it whole (it holds a line per download). */
export class ModelOrigins {
  private readonly file: string;
  private origins: Record<string, string>;

  constructor(dataDir: string) {
    this.file = path.join(dataDir, 'model-origins.json');
    this.origins = readOrigins(this.file);
  }

  /** Where the model at `modelPath` came from, in words, or null when it was not downloaded here. */
  of(modelPath: string): string | null {
    return this.origins[path.resolve(modelPath)] ?? null;
  }

  /** Records (or, with null, forgets) where the model at `modelPath` came from. */
  set(modelPath: string, origin: string | null): void {
    const key = path.resolve(modelPath);
    if (origin === null) delete this.origins[key];
    else this.origins[key] = origin;
    try {
      writeFileSync(this.file, JSON.stringify(this.origins, null, 1));
    } catch (error) {
      // The model itself is in place; only the words about its origin are lost.
      console.warn(`could not record where ${key} came from: ${(error as Error).message}`);
    }
  }
}

function readOrigins(file: string): Record<string, string> {
  try {
    const parsed = OriginsSchema.safeParse(JSON.parse(readFileSync(file, 'utf8')));
    return parsed.success ? parsed.data : {};
  } catch {
    return {}; // no downloads yet (or an unreadable file): no model has a recorded origin
  }
}
