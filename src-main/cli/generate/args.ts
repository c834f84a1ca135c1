import { parseArgs } from 'node:util';
import { UsageError } from '../usage-error';

/** What `npm run generate -- …` was asked for: its usage, or one generation. */
export type GenerateArgs =
  | { kind: 'help' }
  | {
      kind: 'generate';
      prompt: string;
      maxTokens: number;
      temperature: number | undefined;
      seed: number | undefined;
      /** A path (FILE.gguf or FOLDER) when one exists there, else a model reference; null: the default model. */
      model: string | null;
      variant: string | null;
      isChat: boolean;
      isJson: boolean;
      /** The data folder, or null for the default (.first-frame in the repository, as `npm run serve`). */
      dataDir: string | null;
    };

/** Usage text printed by --help and after a bad command line. */
export const GENERATE_USAGE = `usage: npm run generate -- "PROMPT" [--model M] [--variant NAME] [--max-tokens N] [--chat]
       [--temperature T] [--seed S] [--json] [--data-dir DIR]
  --model M        a .gguf file or a model folder by path (a GGUF converts into the data folder's
                   graph cache on its first run), or a model by name as the app lists it
                   (NAME or NAME:variant: bundled, the data folder's models/); default: the bundled model
  --variant NAME   that model's variant (q4, fp16, gguf, …); default: its default variant
  --max-tokens N   output tokens at most (default 64)
  --chat           send the prompt as a user message through the model's chat template
  --temperature T  sampling temperature (0: greedy); --seed S fixes the sampling
  --json           the text and the measured facts (prefill, per-token times) as JSON
  --data-dir DIR   the data folder (default .first-frame in the repository, as npm run serve)`;

/** Parses the generate flags; throws UsageError with a message a user can act on. */
export function parseGenerateArgs(argv: readonly string[]): GenerateArgs {
  let parsed;
  try {
    parsed = parseArgs({
      args: [...argv],
      allowPositionals: true,
      options: {
        'max-tokens': { type: 'string', default: '64' },
        temperature: { type: 'string' },
        seed: { type: 'string' },
        model: { type: 'string' },
        variant: { type: 'string' },
        'data-dir': { type: 'string' },
        chat: { type: 'boolean', default: false },
        json: { type: 'boolean', default: false },
        help: { type: 'boolean', short: 'h', default: false },
      },
    });
  } catch (error) {
    throw new UsageError((error as Error).message);
  }
  const { values, positionals } = parsed;
  if (values.help) return { kind: 'help' };
  const prompt = positionals.join(' ');
  if (!prompt) throw new UsageError('say what to continue: the prompt is the first argument');
  return {
    kind: 'generate',
    prompt,
    maxTokens: numberOf(values['max-tokens'], '--max-tokens', (n) => Number.isInteger(n) && n > 0)!,
    temperature: numberOf(values.temperature, '--temperature', (n) => n >= 0),
    seed: numberOf(values.seed, '--seed', Number.isSafeInteger),
    model: nonEmpty(values.model, '--model'),
    variant: nonEmpty(values.variant, '--variant'),
    isChat: values.chat,
    isJson: values.json,
    dataDir: nonEmpty(values['data-dir'], '--data-dir'),
  };
}

function numberOf(
  value: string | undefined,
  flag: string,
  isValid: (n: number) => boolean,
): number | undefined {
  if (value === undefined) return undefined;
  const n = Number(value);
  if (value.trim() === '' || !Number.isFinite(n) || !isValid(n))
    throw new UsageError(`${flag} ${value} is not a valid value`);
  return n;
}

function nonEmpty(value: string | undefined, flag: string): string | null {
  if (value === undefined) return null;
  if (value.trim() === '') throw new UsageError(`${flag} needs a value`);
  return value;
}
