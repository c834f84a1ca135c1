/**
 * `npm run bench -- <name> [options]`: one entry point for every benchmark. Each benchmark
 * states its workload, boundary and percentile in its own output.
 */
import { printError } from '../src-main/printable';
import { BENCHMARKS } from './registry';

async function main(argv: string[]): Promise<number> {
  const [name, ...rest] = argv;
  const bench = name ? BENCHMARKS[name] : undefined;
  if (!bench) {
    printError(`usage: npm run bench -- <${Object.keys(BENCHMARKS).join('|')}> [options]`);
    for (const [key, entry] of Object.entries(BENCHMARKS)) printError(`  ${key.padEnd(12)} ${entry.summary}`);
    return name ? 2 : 0;
  }
  const { run } = await bench.load();
  return run(rest);
}

main(process.argv.slice(2)).then(
  (code) => process.exit(code),
  (error: unknown) => {
    printError(error instanceof Error ? (error.stack ?? error.message) : String(error));
    process.exit(1);
  },
);
