/**
 * `npm run serve -- [--port N] [--host ADDR] [--seats N …]`: the headless host. Runs the real
 * core on the bundled model and serves the renderer and its API to a browser on this machine;
 * runtime settings flags override the ones the Settings panel kept.
 */
import path from 'node:path';
import { setTimeout } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';
import { createCore } from '../service/create-core';
import { exposureProblem } from '../host/http/auth';
import { ensureRendererBuilt } from '../host/http/ensure-renderer';
import { startHttpHost } from '../host/http/http-host';
import { parseServeArgs, SERVE_USAGE } from '../host/http/serve-args';
import { openAiRoutes } from '../host/openai/handle-openai';
import { guardProcess } from '../host/process-guard';
import { BUNDLED_MODELS_DIR, DEFAULT_DATA_DIR } from './paths';
import { print, printError } from '../printable';
import { reasonOf } from '../telemetry/log/log';

const REPO_ROOT = fileURLToPath(new URL('../..', import.meta.url));
const RENDERER_DIR = path.join(REPO_ROOT, 'out', 'renderer');

async function main(argv: string[]): Promise<number> {
  let args;
  try {
    args = parseServeArgs(argv);
  } catch (error) {
    printError(`${(error as Error).message}\n${SERVE_USAGE}`);
    return 2;
  }
  if (args.isHelp) {
    print(SERVE_USAGE);
    return 0;
  }
  const apiKey = process.env['FIRST_FRAME_API_KEY'] || null;
  const exposure = exposureProblem(args.host, apiKey !== null, args.isKeyWaived);
  if (exposure) {
    printError(exposure);
    return 2;
  }
  if (await ensureRendererBuilt(RENDERER_DIR, REPO_ROOT)) print(`Built the renderer into ${RENDERER_DIR}`);
  const core = await createCore({
    dataDir: args.dataDir ?? DEFAULT_DATA_DIR,
    bundledModelsDir: BUNDLED_MODELS_DIR,
    host: 'headless',
    runtime: args.settings,
    discoverModels: args.discoverModels ?? undefined,
  });
  const host = await startHttpHost({
    service: core.service,
    openExport: (request) => core.openExport(request),
    importTrace: (upload) => core.importTrace(upload),
    // The host checks the key on every route, /v1 included (in OpenAI's error format there).
    routes: [openAiRoutes({ openai: core.openai })],
    apiKey,
    isKeyWaived: args.isKeyWaived,
    log: core.log,
    rendererDir: RENDERER_DIR,
    port: args.port,
    host: args.host,
    extraHostNames: args.extraHostNames,
  }).catch(async (error: NodeJS.ErrnoException) => {
    await core.close();
    if (error.code === 'EADDRINUSE')
      throw new Error(
        `port ${args.port} is in use (another First Frame?): start on another port with \`npm start -- --port N\` (\`npm run serve -- --port N\` for the headless host alone; N = 0 picks any free port)`,
      );
    throw error;
  });
  for (const line of core.describe()) print(line);
  if (host.isPublic && !apiKey)
    printError(
      `WARNING: listening on ${host.host} with --no-key: anyone who can reach this machine can use the model and read your conversations.`,
    );
  print(
    apiKey
      ? `OpenAI-compatible API at ${host.url}v1; every route needs the key (Bearer, or any user name and the key as password in a browser)`
      : `OpenAI-compatible API at ${host.url}v1 (set FIRST_FRAME_API_KEY to require a key on every route)`,
  );
  print(`First Frame is serving at ${host.url}  (Ctrl+C to stop)`);
  // Load the default model now, like a server would, so the first message does not pay for it.
  core.prefetchDefault().then(
    (modelId) => modelId && print(`model ${modelId} is resident`),
    (error: Error) => printError(`could not prefetch the default model: ${error.message}`),
  );
  let stopOnError: () => void = () => undefined;
  const failed = new Promise<'error'>((resolve) => (stopOnError = () => resolve('error')));
  guardProcess({
    log: core.log,
    logPath: core.log.path,
    tell: (message) => printError(message),
    stop: () => stopOnError(),
  });
  const why = await Promise.race([untilSignal(), failed]);
  print('Stopping: closing connections, cancelling requests, flushing the store…');
  const closed = (async () => {
    await host.close();
    await core.close();
  })();
  // After an uncaught error the state is suspect: closing gets a bound, then the process exits anyway.
  if (why === 'error') await Promise.race([closed, setTimeout(FATAL_CLOSE_MS, undefined, { ref: false })]);
  else await closed;
  return why === 'error' ? 1 : 0;
}

/** Longest an ordered stop after an uncaught error may take before the process exits anyway (ms). */
const FATAL_CLOSE_MS = 10_000;

function untilSignal(): Promise<'signal'> {
  return new Promise((resolve) => {
    process.once('SIGINT', () => resolve('signal'));
    process.once('SIGTERM', () => resolve('signal'));
  });
}

main(process.argv.slice(2)).then(
  (code) => process.exit(code),
  (error: unknown) => {
    printError(reasonOf(error));
    process.exit(1);
  },
);
