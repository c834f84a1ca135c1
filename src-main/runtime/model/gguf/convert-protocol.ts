import type { ConversionRecord } from './gguf-convert';

/** A conversion for the conversion thread: the GGUF (first shard) and the folder to write. */
export interface ConvertJob {
  file: string;
  dir: string;
}

/** What the conversion thread says: progress (bytes of tensors converted), then done or failed. */
export type ConvertReply =
  | { type: 'progress'; bytesDone: number; bytesTotal: number }
  | { type: 'done'; record: ConversionRecord }
  | { type: 'failed'; message: string };
