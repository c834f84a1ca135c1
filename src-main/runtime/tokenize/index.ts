export { TokenizerThread } from './tokenizer-thread';
