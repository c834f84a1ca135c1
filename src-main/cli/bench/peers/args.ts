import path from 'node:path';
import { parseArgs } from 'node:util';
import { defaultRuntimeOptions } from '../../../runtime';
import { BUNDLED_MODELS_DIR } from '../../paths';
import type { PeersWorkload } from './workload';

const OPTIONS = {
  model: { type: 'string' },
  variant: { type: 'string' },
  json: { type: 'boolean', default: false },
  runs: { type: 'string', default: '10' },
  'prompt-tokens': { type: 'string', default: '128' },
  'output-tokens': { type: 'string', default: '32' },
  turns: { type: 'string', default: '8' },
  'conversation-runs': { type: 'string', default: '3' },
  'user-tokens': { type: 'string', default: '48' },
  conversations: { type: 'string', default: '4' },
  'concurrent-turns': { type: 'string', default: '4' },
  threads: { type: 'string' },
} as const;

/** `npm run bench -- peers` options: the model folder, --json, and the workload's sizes. */
export function parsePeersArgs(argv: string[]): {
  modelDir: string;
  variant: string | null;
  isJson: boolean;
  workload: PeersWorkload;
} {
  const { values: v } = parseArgs({ args: argv, options: OPTIONS });
  const count = (name: keyof typeof OPTIONS, text: string | undefined): number => {
    const value = Number(text);
    if (!Number.isInteger(value) || value < 1) throw new Error(`--${name} "${text}": an integer ≥ 1`);
    return value;
  };
  return {
    modelDir: path.resolve(v.model ?? path.join(BUNDLED_MODELS_DIR, 'ff-austen-mini')),
    variant: v.variant ?? null,
    isJson: v.json,
    workload: {
      numRuns: count('runs', v.runs),
      numPromptTokens: count('prompt-tokens', v['prompt-tokens']),
      numOutputTokens: count('output-tokens', v['output-tokens']),
      numTurns: count('turns', v.turns),
      numConversationRuns: count('conversation-runs', v['conversation-runs']),
      numUserTokens: count('user-tokens', v['user-tokens']),
      numConversations: count('conversations', v.conversations),
      numConcurrentTurns: count('concurrent-turns', v['concurrent-turns']),
      // The runtime's own default (all cores but the main thread's), for all three engines alike.
      numThreads: v.threads
        ? count('threads', v.threads)
        : defaultRuntimeOptions({ bundledModelsDir: '' }).numThreads,
    },
  };
}
