// One file from the hub into a `.part` file: streamed chunk by chunk (never held whole), hashed
// as it arrives, resumed with HTTP Range where an earlier try stopped, checked against the hub's
// sha256. Every await is one chunk's write, so the serving thread is never held for long.

import { createHash } from 'node:crypto';
import type { Hash } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { open, rm, stat, truncate } from 'node:fs/promises';
import type { FileHandle } from 'node:fs/promises';
import { HUB_LIMITS } from '../../limits';
import { PRIVATE_FILE_MODE } from '../../private-files';
import { describeFetchError } from '../../runtime/remote/fetch-errors';
import type { FileCheck } from './hub-client';

/** What to fetch and where it goes. */
export interface FileFetch {
  url: string;
  headers: Record<string, string>;
  /** The `.part` file (created 0600; an existing one is resumed). */
  partPath: string;
  /** Bytes the hub lists for it, or null when it did not say. */
  numBytes: number | null;
  /** What the bytes must hash to, or null when the hub gives nothing (then nothing is checked). */
  check: FileCheck | null;
  signal: AbortSignal;
  /** Bytes in the `.part` so far, after every chunk. */
  onBytes(numBytes: number): void;
  /** Told when the first bytes of a resumed part are being hashed again. */
  onVerifying(): void;
}

/**
 * Why a download stopped. `canResume`: the `.part` is good so far and kept (a dropped
 * connection, a stall); otherwise it is wrong or pointless to keep (bad bytes, a refusal).
 */
export class DownloadError extends Error {
  constructor(
    message: string,
    readonly canResume: boolean,
  ) {
    super(message);
  }
}

/**
 * Fetches one file into its `.part`, resuming what is there, up to HUB_LIMITS.numResumes times
 * after a drop. Resolves with whether the sha256 was checked; a wrong sha256 removes the part.
 */
export async function fetchFile(job: FileFetch): Promise<{ isVerified: boolean }> {
  for (let attempt = 0; ; attempt++) {
    try {
      return await fetchOnce(job);
    } catch (error) {
      const stopped = asDownloadError(error, job);
      if (!stopped.canResume || attempt >= HUB_LIMITS.numResumes || job.signal.aborted) throw stopped;
    }
  }
}

/** One try: hash what the part holds, ask for the rest, append it, check the whole. */
async function fetchOnce(job: FileFetch): Promise<{ isVerified: boolean }> {
  let hash = newHash(job);
  let numHave = await sizeOf(job.partPath);
  if (job.numBytes !== null && numHave > job.numBytes) numHave = await restart(job.partPath);
  if (numHave > 0) {
    job.onVerifying();
    await hashFile(job.partPath, hash, job.signal);
  }
  if (job.numBytes === null || numHave < job.numBytes) {
    const response = await request(job, numHave);
    if (numHave > 0 && response.status === 200) {
      // The server sends the whole file instead of the rest: start over with it.
      numHave = await restart(job.partPath);
      hash = newHash(job);
    }
    await appendBody(job, response, hash, numHave);
  }
  const numBytes = await sizeOf(job.partPath);
  if (job.numBytes !== null && numBytes !== job.numBytes)
    throw new DownloadError(`the hub sent ${numBytes} of ${job.numBytes} bytes`, true);
  if (job.check === null) return { isVerified: false };
  const digest = hash.digest('hex');
  if (digest !== job.check.hex) {
    await rm(job.partPath, { force: true });
    const what = job.check.kind === 'sha256' ? 'sha256' : 'git blob id';
    throw new DownloadError(
      `the file's ${what} is ${digest.slice(0, 12)}…, not the ${job.check.hex.slice(0, 12)}… the hub lists: it was damaged on the way and was removed; try again`,
      false,
    );
  }
  return { isVerified: true };
}

/** The hash the file's check takes: sha256, or git's sha1 over `blob <size>\0` and the bytes. */
function newHash(job: FileFetch): Hash {
  if (job.check?.kind !== 'git-blob' || job.numBytes === null) return createHash('sha256');
  return createHash('sha1').update(`blob ${job.numBytes}\0`);
}

/** The file's response from byte `from` on (a Range request when resuming), or why not. */
async function request(job: FileFetch, from: number): Promise<Response> {
  const headers = { ...job.headers, ...(from > 0 ? { range: `bytes=${from}-` } : {}) };
  let response: Response;
  try {
    response = await fetch(job.url, { headers, signal: job.signal });
  } catch (error) {
    throw new DownloadError(describeFetchError(error, job.url), !job.signal.aborted);
  }
  if (response.status === 416) {
    await response.body?.cancel();
    await restart(job.partPath);
    throw new DownloadError('the hub refused to resume the file where it stopped', true);
  }
  if (response.status === 206) {
    const start = /^bytes (\d+)-/.exec(response.headers.get('content-range') ?? '')?.[1];
    if (Number(start) !== from) {
      await response.body?.cancel();
      throw new DownloadError(`the hub resumed at byte ${start ?? '?'}, not at ${from}`, false);
    }
  } else if (!response.ok || !response.body) {
    await response.body?.cancel();
    throw new DownloadError(statusWords(response.status), response.status >= 500);
  }
  return response;
}

/** Appends the body to the part, chunk by chunk, hashing each; a stall past the idle limit stops it. */
async function appendBody(job: FileFetch, response: Response, hash: Hash, from: number): Promise<void> {
  const file = await open(job.partPath, 'a', PRIVATE_FILE_MODE);
  const reader = response.body!.getReader();
  let numBytes = from;
  let isStalled = false;
  let stall: NodeJS.Timeout | undefined;
  const arm = () => {
    clearTimeout(stall);
    // Cancelling the reader ends the pending read (done), so the loop below sees the stall.
    stall = setTimeout(() => {
      isStalled = true;
      void reader.cancel();
    }, HUB_LIMITS.idleTimeoutMs);
  };
  try {
    arm();
    job.onBytes(numBytes);
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      arm();
      if (job.numBytes !== null && numBytes + value.byteLength > job.numBytes)
        throw new DownloadError(`the hub sent more than the ${job.numBytes} bytes it lists`, false);
      hash.update(value);
      await writeAll(file, value);
      numBytes += value.byteLength;
      job.onBytes(numBytes);
    }
  } catch (error) {
    await reader.cancel().catch(() => undefined); // the connection is being dropped anyway
    throw asDownloadError(error, job);
  } finally {
    clearTimeout(stall);
    await file.close();
  }
  if (isStalled)
    throw new DownloadError(`the hub sent nothing for ${HUB_LIMITS.idleTimeoutMs / 1000} s`, true);
}

async function writeAll(file: FileHandle, bytes: Uint8Array): Promise<void> {
  for (let at = 0; at < bytes.byteLength;) {
    const { bytesWritten } = await file.write(bytes, at, bytes.byteLength - at);
    at += bytesWritten;
  }
}

/** Feeds the part's bytes into the hash (a resume checks the whole file, not only the new bytes). */
async function hashFile(file: string, hash: Hash, signal: AbortSignal): Promise<void> {
  for await (const chunk of createReadStream(file, { signal, highWaterMark: 1024 * 1024 }))
    hash.update(chunk as Buffer);
}

async function sizeOf(file: string): Promise<number> {
  return (await stat(file).catch(() => null))?.size ?? 0;
}

/** Empties the part (its bytes are not the file's); returns 0, the bytes it now holds. */
async function restart(file: string): Promise<number> {
  await truncate(file, 0).catch(() => undefined); // no part yet: nothing to empty
  return 0;
}

/** Any error of a try as a DownloadError: the disk full and a cancel are final, a dropped connection is not. */
function asDownloadError(error: unknown, job: FileFetch): DownloadError {
  if (job.signal.aborted) return new DownloadError('cancelled', false);
  if (error instanceof DownloadError) return error;
  const code = (error as NodeJS.ErrnoException).code;
  if (code === 'ENOSPC') return new DownloadError('the disk is full', false);
  if (code === 'EACCES' || code === 'EPERM' || code === 'EROFS')
    return new DownloadError(`the models folder cannot be written: ${(error as Error).message}`, false);
  return new DownloadError(describeFetchError(error, job.url), true);
}

function statusWords(status: number): string {
  if (status === 401 || status === 403)
    return 'the hub would not send the file: a gated or private model needs a token (HF_TOKEN) with access to it';
  if (status === 404) return 'the hub has no such file at this revision';
  return `the hub answered HTTP ${status} for the file`;
}
