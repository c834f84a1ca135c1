import { randomUUID } from 'node:crypto';
import type {
  ConversationRecord,
  MessageRecord,
  NewConversation,
  NewMessage,
} from '../../history/queries/chat-records';
import {
  CONVERSATION_EXPORT_FORMAT,
  ConversationExportSchema,
  MessageMetaSchema,
} from '../contract/chat-schemas';
import type { ConversationExport, ConversationSettings } from '../contract/chat-schemas';
import { describeIssues } from '../contract/result';
import { pathTo } from './tree';
import { messageFieldsOf } from './view';
import { answerFinishOf, storedFinishOf } from './answer-finish';
import { jsonTextWorkProblem } from '../../json-work';
import { JSON_WORK_LIMITS } from '../../limits';

/** A file name safe on every OS, from a conversation title. */
export function fileNameOf(title: string, extension: 'json' | 'md'): string {
  const base = title
    .replace(/[^\p{L}\p{N} _-]+/gu, ' ')
    .trim()
    .replace(/\s+/g, '-')
    .slice(0, 60);
  return `${base || 'conversation'}.${extension}`;
}

/**
 * The whole conversation as JSON: every branch, settings and each answer's timeline. Each
 * answer is exported with the finish it is shown with (answerFinishOf): one whose request is
 * gone mid-stream (not `isRunning`) is `interrupted`.
 */
export function exportJson(
  conversation: ConversationRecord,
  settings: ConversationSettings,
  messages: readonly MessageRecord[],
  atWallMs: number,
  isRunning: (requestId: string) => boolean = () => false,
): string {
  const data: ConversationExport = {
    format: CONVERSATION_EXPORT_FORMAT,
    exportedWallMs: atWallMs,
    title: conversation.title,
    createdWallMs: conversation.createdWallMs,
    settings,
    leafMessageId: conversation.leafMessageId,
    messages: messages.map((m) => {
      const meta = MessageMetaSchema.parse(m.meta ?? {});
      const timeline = m.timeline ?? meta.importedTimeline;
      return {
        ...messageFieldsOf(m),
        finishReason: answerFinishOf(m, meta, timeline, isRunning),
        meta: { ...meta, importedTimeline: null },
        timeline,
      };
    }),
  };
  return `${JSON.stringify(data, null, 2)}\n`;
}

/** The branch on screen as Markdown, for reading: one heading per turn, TTFT under each answer. */
export function exportMarkdown(
  conversation: ConversationRecord,
  settings: ConversationSettings,
  messages: readonly MessageRecord[],
): string {
  const lines = [`# ${conversation.title}`, ''];
  if (settings.systemPrompt) lines.push('## System', '', settings.systemPrompt, '');
  for (const m of pathTo(messages, conversation.leafMessageId)) {
    lines.push(m.role === 'user' ? '## You' : `## ${m.role === 'assistant' ? 'Assistant' : 'System'}`, '');
    lines.push(m.content, '');
    const t = m.timeline;
    if (m.role === 'assistant' && t && t.ttftMs !== null)
      lines.push(
        `_First token after ${t.ttftMs.toFixed(1)} ms · ${t.numOutputTokens} tokens · finished: ${t.finishReason}_`,
        '',
      );
  }
  return lines.join('\n');
}

/** A validated import, ready to store under fresh ids. */
export interface ParsedImport {
  conversation: NewConversation;
  messages: NewMessage[];
}

/**
 * Parses an exported conversation, refusing (with the reason, as an Error) anything that is not
 * one: not JSON, another format, or a tree whose parents are missing or cyclic. Messages get
 * fresh ids, so importing the same file twice gives two independent conversations.
 */
export function parseImport(text: string, fileName: string): ParsedImport {
  const problem = jsonTextWorkProblem(text, JSON_WORK_LIMITS.conversationFile);
  if (problem !== null) throw new Error(`${fileName} ${problem}; it was refused before parsing`);
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch (error) {
    throw new Error(
      `${fileName} is not JSON (${(error as Error).message}); import takes a conversation exported as JSON`,
    );
  }
  const format = (raw as { format?: unknown } | null)?.format;
  if (format !== CONVERSATION_EXPORT_FORMAT)
    throw new Error(
      `${fileName} is not a First Frame conversation export (format ${JSON.stringify(format ?? null)}, expected "${CONVERSATION_EXPORT_FORMAT}")`,
    );
  const parsed = ConversationExportSchema.safeParse(raw);
  if (!parsed.success)
    throw new Error(`${fileName} is not a valid conversation: ${describeIssues(parsed.error)}`);
  const data = parsed.data;
  checkTree(data);
  const ids = new Map(data.messages.map((m) => [m.messageId, randomUUID()]));
  const newId = (id: string | null) => (id === null ? null : ids.get(id)!);
  return {
    conversation: {
      title: data.title,
      atWallMs: data.createdWallMs,
      settings: data.settings,
      leafMessageId: newId(data.leafMessageId),
    },
    messages: data.messages.map((m) => ({
      conversationId: '',
      messageId: newId(m.messageId)!,
      parentId: newId(m.parentId),
      role: m.role,
      content: m.content,
      requestId: m.requestId,
      finishReason: storedFinishOf(m.finishReason),
      meta: {
        ...m.meta,
        importedTimeline: m.timeline,
        isCheckpoint: m.meta.isCheckpoint || m.finishReason === 'interrupted',
      },
      atWallMs: m.createdWallMs,
    })),
  };
}

/** Every parent exists and comes earlier in the file (so there is no cycle); the leaf exists. */
function checkTree(data: ConversationExport): void {
  const seen = new Set<string>();
  for (const [i, m] of data.messages.entries()) {
    if (seen.has(m.messageId)) throw new Error(`message ${i + 1} repeats the id ${m.messageId}`);
    if (m.parentId !== null && !seen.has(m.parentId))
      throw new Error(`message ${i + 1} follows ${m.parentId}, which does not come before it in the file`);
    seen.add(m.messageId);
  }
  if (data.leafMessageId !== null && !seen.has(data.leafMessageId))
    throw new Error(`the conversation ends at ${data.leafMessageId}, which is not among its messages`);
}
