// The listing thread's work for one model: the same reading and checking the catalogue did on
// the serving thread (config, GGUF header and metadata, tokenizer build, chat template test
// render, graph inspection), answered as plain data.

import { listGguf } from '../gguf/gguf-listing';
import { loadModelFolder } from '../load-folder';
import type { ModelFolder } from '../load-folder';
import type { ListedFolder, ListingJob, ListingResult } from './listing-protocol';

/** Lists one model; never throws (an unexpected failure is the model's problem, in words). */
export function listModel(job: ListingJob): ListingResult {
  try {
    return job.kind === 'folder' ? listFolder(job.path) : listGgufFile(job);
  } catch (error) {
    return { status: 'broken', problem: (error as Error).message ?? String(error) };
  }
}

function listFolder(dir: string): ListingResult {
  return { status: 'ok', folder: withoutTokenizer(loadModelFolder(dir)), gguf: null };
}

function listGgufFile(job: ListingJob): ListingResult {
  const listing = listGguf(job.path, job.convertedDir, job.defaultSampling);
  if (listing.status !== 'ok') return listing;
  const { folder, graph, revisions, conversion } = listing;
  return { status: 'ok', folder: withoutTokenizer(folder), gguf: { graph, revisions, conversion } };
}

/** The folder's plain data: the tokenizer is a class instance with closures, rebuilt where it is used. */
function withoutTokenizer(folder: ModelFolder): ListedFolder {
  const { tokenizer: _tokenizer, ...rest } = folder;
  return rest;
}
