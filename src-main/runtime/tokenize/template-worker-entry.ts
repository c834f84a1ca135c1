import { parentPort } from 'node:worker_threads';
import { ChatTemplate } from './chat-template';
import type { RenderJob, RenderReply } from './protocol';

// The template thread: a chat template over the serving thread's budget renders here, so one
// model's slow template never holds another request. Same class, same bounds, so the text is the
// text the serving thread would have rendered.

const port = parentPort!;
/** Templates parsed, by source; a few models' templates at most are in use at once. */
const templates = new Map<string, ChatTemplate>();
const MAX_TEMPLATES = 8;

function templateOf(source: string): ChatTemplate {
  let template = templates.get(source);
  if (!template) {
    template = ChatTemplate.parse(source);
    if (templates.size >= MAX_TEMPLATES) templates.delete(templates.keys().next().value!);
    templates.set(source, template);
  }
  return template;
}

port.on('message', (job: RenderJob) => {
  let reply: RenderReply;
  try {
    reply = { id: job.id, ...templateOf(job.source).renderCounted(job.items, job.inputChars) };
  } catch (error) {
    reply = { id: job.id, error: error instanceof Error ? error.message : String(error) };
  }
  port.postMessage(reply);
});
