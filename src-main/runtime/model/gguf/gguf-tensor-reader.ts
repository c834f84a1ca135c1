// Reads one GGUF tensor's bytes at a time from its shard (a positional read into a fresh,
// aligned buffer), so a conversion holds one tensor of the file, never the file.

import { closeSync, openSync, readSync } from 'node:fs';
import { GgufFormatError } from './gguf-header';
import type { GgufSetTensor } from './gguf-files';

/** One tensor of the set and its bytes as read. */
export interface TensorRead {
  tensor: GgufSetTensor;
  bytes: Uint8Array;
}

/** Open shards of one set; `close()` releases them. Reads never write. */
export class GgufTensorReader {
  private readonly fds = new Map<string, number>();

  /** The tensor's bytes (a copy of the file's, aligned for any typed-array view). */
  read(tensor: GgufSetTensor): Uint8Array {
    const bytes = new Uint8Array(tensor.numBytes);
    const fd = this.fdOf(tensor.file);
    let numRead = 0;
    while (numRead < bytes.length) {
      const n = readSync(fd, bytes, numRead, bytes.length - numRead, tensor.offset + numRead);
      if (n === 0) throw new GgufFormatError(`ends inside tensor ${tensor.name} (truncated)`);
      numRead += n;
    }
    return bytes;
  }

  close(): void {
    for (const fd of this.fds.values()) closeSync(fd);
    this.fds.clear();
  }

  private fdOf(file: string): number {
    let fd = this.fds.get(file);
    if (fd === undefined) {
      fd = openSync(file, 'r');
      this.fds.set(file, fd);
    }
    return fd;
  }
}
