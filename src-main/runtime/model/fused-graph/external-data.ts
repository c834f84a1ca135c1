// A graph's external data file, written as the graph is built: each initializer's bytes at the
// next offset aligned to ALIGNMENT (ONNX Runtime maps such offsets directly), so a graph of many
// GB is written with one tensor in memory at a time.

import { closeSync, openSync, writeSync } from 'node:fs';
import path from 'node:path';
import type { ExternalDataSink } from './graph-builder';

/** Offsets of initializers in the file are multiples of this (a page). */
export const EXTERNAL_DATA_ALIGNMENT = 4096;

/** An external data file being written; `close()` once the graph is encoded. */
export class ExternalDataFile implements ExternalDataSink {
  readonly location: string;
  private readonly fd: number;
  private numBytes = 0;

  /** Creates (or truncates) `file`; the graph records it by its base name (it lies beside the graph). */
  constructor(file: string) {
    this.location = path.basename(file);
    this.fd = openSync(file, 'w');
  }

  write(bytes: Uint8Array): number {
    const offset = Math.ceil(this.numBytes / EXTERNAL_DATA_ALIGNMENT) * EXTERNAL_DATA_ALIGNMENT;
    let written = 0;
    while (written < bytes.byteLength)
      written += writeSync(this.fd, bytes, written, bytes.byteLength - written, offset + written);
    this.numBytes = offset + bytes.byteLength;
    return offset;
  }

  /** Bytes written (the file's length). */
  get size(): number {
    return this.numBytes;
  }

  close(): void {
    closeSync(this.fd);
  }
}
