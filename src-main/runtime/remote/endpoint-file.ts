import { readFileSync, renameSync, writeFileSync } from 'node:fs';
import { z } from 'zod';
import { ENGINE_KINDS } from './endpoint-input';

/** One endpoint as kept on disk (never its key: that has a file of its own). */
export const StoredEndpointSchema = z.object({
  endpointId: z.string().regex(/^[a-z0-9][a-z0-9-]*$/),
  name: z.string().min(1).max(80),
  baseUrl: z.string().url(),
  engine: z.enum(ENGINE_KINDS),
  hasKey: z.boolean(),
  addedWallMs: z.number(),
});
/** See StoredEndpointSchema. */
export type StoredEndpoint = z.infer<typeof StoredEndpointSchema>;

const FileSchema = z.object({ version: z.literal(1), endpoints: z.array(StoredEndpointSchema) });

/**
 * Reads the endpoints file. A missing file is no endpoints; an unreadable or invalid one is
 * an Error the caller reports (the file is left as it is, so nothing the user added is lost).
 */
export function readEndpointFile(file: string): StoredEndpoint[] | Error {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return [];
    return new Error(`endpoints file ${file} cannot be read: ${(error as Error).message}`);
  }
  try {
    return FileSchema.parse(JSON.parse(text)).endpoints;
  } catch (error) {
    return new Error(`endpoints file ${file} is not valid (left untouched): ${(error as Error).message}`);
  }
}

/** Writes the endpoints file atomically (a crash mid-write leaves the old file). */
export function writeEndpointFile(file: string, endpoints: readonly StoredEndpoint[]): void {
  const temp = `${file}.tmp`;
  writeFileSync(temp, `${JSON.stringify({ version: 1, endpoints }, null, 2)}\n`, 'utf8');
  renameSync(temp, file);
}
