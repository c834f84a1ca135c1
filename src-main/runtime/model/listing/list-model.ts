// The listing thread's work for one model: the same reading and checking the catalogue did on
// the serving thread (config, GGUF header and metadata, tokenizer build, chat template test
// render, graph inspection), answered as plain data.

import { TEMPLATE_LIMITS, TemplateError } from '../../tokenize/chat-template';
import { listGguf } from '../gguf/gguf-listing';
import { loadModelFolder } from '../load-folder';
import type { ModelFolder } from '../load-folder';
import type { ChatTurn, TextTokenizer, TokenizerFacts } from '../../tokenize/tokenizer';
import { LISTING_BUDGET } from './listing-protocol';
import type { ListedFolder, ListingJob, ListingResult } from './listing-protocol';

/** Lists one model; never throws (an unexpected failure is the model's problem, in words). */
export function listModel(job: ListingJob): ListingResult {
  try {
    return job.kind === 'folder' ? listFolder(job) : listGgufFile(job);
  } catch (error) {
    return { status: 'broken', problem: (error as Error).message ?? String(error) };
  }
}

function listFolder(job: ListingJob): ListingResult {
  const folder = loadModelFolder(job.path);
  const overBudget = longConversationProblem(folder.tokenizer);
  if (overBudget) return { status: 'broken', problem: `${job.path}: chat template ${overBudget}` };
  return { status: 'ok', folder: withoutTokenizer(folder), gguf: null, tokenizerFacts: factsOf(job, folder) };
}

function listGgufFile(job: ListingJob): ListingResult {
  const listing = listGguf(job.path, job.convertedDir, job.defaultSampling);
  if (listing.status !== 'ok') return listing;
  const { folder, graph, revisions, conversion } = listing;
  const overBudget = longConversationProblem(folder.tokenizer);
  if (overBudget) return { status: 'broken', problem: `is a GGUF model whose chat template ${overBudget}` };
  const gguf = { graph, revisions, conversion };
  return { status: 'ok', folder: withoutTokenizer(folder), gguf, tokenizerFacts: factsOf(job, folder) };
}

/** The tokenizer's facts when the job asks for them (the serving thread then never builds it). */
function factsOf(job: ListingJob, folder: ModelFolder): TokenizerFacts | null {
  return job.isSendingTokenizer === true ? folder.tokenizer.facts() : null;
}

/**
 * Why the template is too slow to render per request, or null: a long conversation must render
 * within TEMPLATE_LIMITS.maxSampleSteps, since every request to the model renders its history on
 * the serving thread. A template that refuses system turns is tried without one.
 */
export function longConversationProblem(tokenizer: TextTokenizer): string | null {
  const sample = sampleConversation(LISTING_BUDGET.numSampleMessages);
  const turns = acceptsSystemTurn(tokenizer) ? sample : sample.slice(1);
  try {
    tokenizer.renderChat(turns, TEMPLATE_LIMITS.maxSampleSteps);
    return null;
  } catch (error) {
    if (!(error instanceof TemplateError)) throw error;
    const why = error.message.replace(/ \(a runaway loop\?\)$/, '');
    return `is over the budget one request may take: rendering a ${turns.length}-message conversation ${why}`;
  }
}

function acceptsSystemTurn(tokenizer: TextTokenizer): boolean {
  try {
    tokenizer.renderChat(sampleConversation(2));
    return true;
  } catch {
    return false;
  }
}

/** A system turn, then user and assistant turns alternating, ending on the user's: `numMessages` in all. */
function sampleConversation(numMessages: number): ChatTurn[] {
  return Array.from({ length: numMessages }, (_, i) => ({
    role: i === 0 ? 'system' : i % 2 === 1 ? 'user' : 'assistant',
    content: i === 0 ? 'You are helpful.' : `Message ${i} of a long conversation, a sentence or so.`,
  }));
}

/** The folder's plain data: the tokenizer is a class instance with closures, rebuilt where it is used. */
function withoutTokenizer(folder: ModelFolder): ListedFolder {
  const { tokenizer: _tokenizer, ...rest } = folder;
  return rest;
}
