import { parseArgs } from 'node:util';
import { defaultRuntimeOptions } from '../../src-main/runtime/runtime-options';
import { slotThreadsOf } from '../../src-main/runtime/runtime-parts';
import { parseSettingValue } from '../../src-main/runtime/settings/flags';
import type { RuntimeSettings } from '../../src-main/runtime/settings/schema';
import { integer, modelDirOf } from '../run-options';
import type { Precision } from './variants';
import { PRECISIONS } from './variants';
import type { PeersWorkload } from './workload';

/** The engines First Frame can be compared with. */
export const PEER_ENGINES = ['llama.cpp', 'transformers.js'] as const;
/** One peer engine's name as `--engines` takes it. */
export type PeerEngineName = (typeof PEER_ENGINES)[number];

const OPTIONS = {
  model: { type: 'string' },
  variant: { type: 'string' },
  engines: { type: 'string', default: PEER_ENGINES.join(',') },
  precisions: { type: 'string', default: Object.keys(PRECISIONS).join(',') },
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
  // The setting's own flag (`canSpinThreads`): First Frame's sessions as a user with it set would run them.
  'spin-threads': { type: 'string' },
  // `--model FILE.gguf`: each engine serving the file in its own process (serving.ts); `only` skips the latency runs.
  serving: { type: 'string', default: 'on' },
  // llama.cpp's context (tokens) in the serving runs.
  context: { type: 'string', default: '2048' },
} as const;

/** Whether a GGUF run measures serving in child processes: beside the latency runs, not at all, or alone. */
export const SERVING_MODES = ['on', 'off', 'only'] as const;

/** Splits a comma list and checks every item against `known`. */
function listOption<T extends string>(name: string, text: string, known: readonly T[]): T[] {
  const items = text.split(',').map((item) => item.trim());
  const unknown = items.filter((item) => !known.includes(item as T));
  if (unknown.length > 0 || items.length === 0)
    throw new Error(`--${name} "${text}": choose from ${known.join(', ')}`);
  return items as T[];
}

/**
 * `npm run bench -- peers` options: the model folder (or a .gguf file), the engines, --json, the workload's sizes
 * and the thread counts and prompt lengths to run llama.cpp's comparison at (`--threads 1,2`,
 * `--prompt-tokens 128,2000`; the workload takes the first of each, which transformers.js's cases run at); `--spin-threads on|off` sets
 * the runtime setting of that name (absent: the setting's default, as a new user has it).
 */
export function parsePeersArgs(argv: string[]): {
  modelDir: string;
  /** `--model FILE.gguf`: that file, fed to llama.cpp as it is and to First Frame through its conversion. */
  ggufFile: string | null;
  variant: string | null;
  isJson: boolean;
  engines: PeerEngineName[];
  precisions: Precision[];
  workload: PeersWorkload;
  threadCounts: number[];
  /** Prompt lengths llama.cpp's comparison runs at (`--prompt-tokens 128,2000`); the workload's is the first. */
  promptTokenCounts: number[];
  /** Runtime settings given on the command line (`--spin-threads`), on top of the defaults. */
  settings: Partial<Pick<RuntimeSettings, 'canSpinThreads'>>;
  serving: (typeof SERVING_MODES)[number];
  /** llama.cpp's context in the serving runs (tokens). */
  contextSize: number;
} {
  const { values: v } = parseArgs({ args: argv, options: OPTIONS });
  // The runtime's own default (all cores but the main thread's), for all three engines alike.
  const threadCounts = v.threads
    ? [...new Set(v.threads.split(',').map((text) => integer(text.trim(), 'threads', 1)))]
    : [slotThreadsOf(defaultRuntimeOptions({ bundledModelsDir: '' }))];
  const promptTokenCounts = [
    ...new Set(v['prompt-tokens'].split(',').map((text) => integer(text.trim(), 'prompt-tokens', 1))),
  ];
  const modelPath = modelDirOf(v.model);
  const ggufFile = modelPath.toLowerCase().endsWith('.gguf') ? modelPath : null;
  const settings =
    v['spin-threads'] === undefined
      ? {}
      : { canSpinThreads: parseSettingValue('canSpinThreads', v['spin-threads']) };
  const [serving] = listOption('serving', v.serving, SERVING_MODES);
  return {
    threadCounts,
    promptTokenCounts,
    settings,
    serving: serving!,
    contextSize: integer(v.context, 'context', 1),
    modelDir: modelPath,
    ggufFile,
    variant: v.variant ?? null,
    isJson: v.json,
    engines: listOption('engines', v.engines, PEER_ENGINES),
    precisions: listOption('precisions', v.precisions, Object.keys(PRECISIONS) as Precision[]),
    workload: {
      numRuns: integer(v.runs, 'runs', 1),
      numPromptTokens: promptTokenCounts[0]!,
      numOutputTokens: integer(v['output-tokens'], 'output-tokens', 1),
      numTurns: integer(v.turns, 'turns', 1),
      numConversationRuns: integer(v['conversation-runs'], 'conversation-runs', 1),
      numUserTokens: integer(v['user-tokens'], 'user-tokens', 1),
      numConversations: integer(v.conversations, 'conversations', 1),
      numConcurrentTurns: integer(v['concurrent-turns'], 'concurrent-turns', 1),
      numThreads: threadCounts[0]!,
    },
  };
}
