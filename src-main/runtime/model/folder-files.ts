import { closeSync, fstatSync, openSync, readFileSync, readSync, realpathSync, statSync } from 'node:fs';
import path from 'node:path';
import { JsonWorkMeter } from '../../json-work';
import { JSON_WORK_LIMITS } from '../../limits';
import { ModelFolderError } from './model-folder-error';

/** Bytes read at a time, each chunk measured before the next is read. */
const CHUNK_BYTES = 1 << 20;

/**
 * What a failed read means, said as what it is: only ENOENT is "missing"; a permission error,
 * a folder where a file belongs or an I/O error is reported as such.
 */
export function describeReadError(error: unknown): string {
  const code = (error as NodeJS.ErrnoException)?.code;
  switch (code) {
    case 'ENOENT':
    case 'ENOTDIR':
      return 'missing';
    case 'EACCES':
    case 'EPERM':
      return 'not readable (permission denied)';
    case 'EISDIR':
      return 'is a folder, not a file';
    case 'ELOOP':
      return 'is a symbolic link loop';
    case 'EIO':
      return 'cannot be read (I/O error)';
    default:
      return `cannot be read (${code ?? (error as Error)?.message ?? 'unknown error'})`;
  }
}

/**
 * The real path of `rel` inside `folder`, refusing one that leads outside the folder (a symlink
 * or `..`): a model folder may only use its own files, and nothing outside is read or echoed
 * (a Hugging Face cache snapshot's own files are its repository's blobs: see linkRootOf).
 * Throws ModelFolderError naming the file; `null` when it is missing and `isOptional`.
 */
export function resolveInside(folder: string, rel: string, isOptional = false): string | null {
  const root = linkRootOf(folder);
  const lexical = path.resolve(folder, rel);
  if (!isWithin(path.resolve(folder), lexical))
    throw new ModelFolderError(folder, rel, 'points outside the model folder; refused');
  let real: string;
  try {
    real = realpathSync(lexical);
  } catch (error) {
    const problem = describeReadError(error);
    if (problem === 'missing' && isOptional) return null;
    throw new ModelFolderError(folder, rel, problem);
  }
  if (!isWithin(root, real))
    throw new ModelFolderError(
      folder,
      rel,
      'is a link that leads outside the model folder; refused, not read',
    );
  return real;
}

/**
 * The real folder a model folder's links may lead into: the folder itself, or for a Hugging
 * Face cache snapshot (`models--org--name/snapshots/<commit>/…`, whose files are links into the
 * repository's `blobs/`) the repository's cache folder.
 */
export function linkRootOf(folder: string): string {
  const parts = path.resolve(folder).split(path.sep);
  const at = parts.lastIndexOf('snapshots');
  const isSnapshot = at >= 1 && at + 1 < parts.length && parts[at - 1]!.startsWith('models--');
  return realpathSync(isSnapshot ? parts.slice(0, at).join(path.sep) : folder);
}

/** Reads a JSON object file of the folder; errors name the file and never quote its content. */
export function readFolderJson(
  folder: string,
  rel: string,
  isOptional = false,
): Record<string, unknown> | null {
  const real = resolveInside(folder, rel, isOptional);
  if (real === null) return null;
  let bytes: Buffer;
  try {
    bytes = readMeasured(real, (problem) => new ModelFolderError(folder, rel, problem));
  } catch (error) {
    if (error instanceof ModelFolderError) throw error;
    throw new ModelFolderError(folder, rel, describeReadError(error));
  }
  let value: unknown;
  try {
    value = JSON.parse(bytes.toString('utf8'));
  } catch (error) {
    throw new ModelFolderError(folder, rel, `malformed JSON${jsonPosition(error)}`);
  }
  if (!value || typeof value !== 'object' || Array.isArray(value))
    throw new ModelFolderError(folder, rel, 'malformed JSON (not a JSON object)');
  return value as Record<string, unknown>;
}

/**
 * Reads a JSON file chunk by chunk, measuring its work as it goes (JSON_WORK_LIMITS.modelFile):
 * a file over a limit is refused after the first chunk that shows it, before it is parsed.
 */
function readMeasured(file: string, refuse: (problem: string) => Error): Buffer {
  const { maxBytes } = JSON_WORK_LIMITS.modelFile;
  const fd = openSync(file, 'r');
  try {
    const size = fstatSync(fd).size;
    if (size > maxBytes) throw refuse(`is ${mb(size)}, over the ${mb(maxBytes)} limit for a JSON file`);
    const bytes = Buffer.allocUnsafe(size);
    const meter = new JsonWorkMeter(JSON_WORK_LIMITS.modelFile);
    let numRead = 0;
    while (numRead < size) {
      const numChunk = readSync(fd, bytes, numRead, Math.min(CHUNK_BYTES, size - numRead), numRead);
      if (numChunk === 0) break;
      const problem = meter.feed(bytes.subarray(numRead, numRead + numChunk));
      if (problem) throw refuse(`${problem}; refused before parsing`);
      numRead += numChunk;
    }
    return bytes.subarray(0, numRead);
  } finally {
    closeSync(fd);
  }
}

/** Reads a small text file of the folder (e.g. chat_template.jinja), or null when absent. */
export function readFolderText(folder: string, rel: string, maxBytes: number): string | null {
  const real = resolveInside(folder, rel, true);
  if (real === null) return null;
  try {
    const size = statSync(real).size;
    if (size > maxBytes)
      throw new ModelFolderError(folder, rel, `is ${mb(size)}, over the ${mb(maxBytes)} limit`);
    return readFileSync(real, 'utf8');
  } catch (error) {
    if (error instanceof ModelFolderError) throw error;
    throw new ModelFolderError(folder, rel, describeReadError(error));
  }
}

/** True when `target` is `root` or below it. */
export function isWithin(root: string, target: string): boolean {
  const rel = path.relative(root, target);
  return rel === '' || (!rel.startsWith('..') && !path.isAbsolute(rel));
}

/** " (at byte N)" from a JSON.parse error, never the text around it (V8 quotes the source). */
function jsonPosition(error: unknown): string {
  const match = /position (\d+)/.exec((error as Error)?.message ?? '');
  return match ? ` (at byte ${match[1]})` : '';
}

function mb(bytes: number): string {
  return `${(bytes / 1048576).toFixed(1)} MB`;
}
