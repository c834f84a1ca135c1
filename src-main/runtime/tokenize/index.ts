export { encodePromptIds, PromptThreads, renderChatPrompt } from './prompt-threads';
export type { OffThreadPrompts } from './prompt-threads';
export { TemplateThread } from './template-thread';
export { TokenizerThread } from './tokenizer-thread';
