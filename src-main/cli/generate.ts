/**
 * `npm run generate -- "Once upon a time" [--model FILE.gguf|FOLDER|NAME[:variant]] [--variant NAME]
 * [--max-tokens N] [--chat] [--temperature T] [--seed S] [--json] [--data-dir DIR]`: one real
 * generation on any model the app runs, streaming the text (generate/run-generate.ts).
 */
import { printError } from '../printable';
import { reasonOf } from '../telemetry/log/log';
import { runGenerate } from './generate/run-generate';

runGenerate(process.argv.slice(2)).then(
  (code) => process.exit(code),
  (error: unknown) => {
    printError(reasonOf(error));
    process.exit(1);
  },
);
