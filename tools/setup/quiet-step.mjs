// @ts-check
// Runs one long setup step (a compile, a download) the way a new user wants to see it: one line
// saying what it is and how long it usually takes, a heartbeat while it runs, and the tool's
// own output (gyp, compiler warnings, download errors) kept back unless the step fails, when it
// is printed whole. Plain Node, no dependencies: install scripts run before anything is built.
import { spawn } from 'node:child_process';

/** Every line this project's setup prints starts with this, so it stands apart from npm's. */
export const PREFIX = '[first-frame]';

/**
 * @typedef {object} StepResult
 * @property {boolean} isOk         the command exited 0 before its deadline
 * @property {number | null} code   exit code (null when killed)
 * @property {boolean} isTimedOut   killed at `timeoutMs`
 * @property {string} output        stdout and stderr, interleaved as they arrived
 * @property {number} elapsedMs     wall time of the command
 * @property {string | null} spawnError why the command could not start at all
 */

/**
 * @typedef {object} StepOptions
 * @property {string} command
 * @property {string[]} args
 * @property {string} cwd
 * @property {NodeJS.ProcessEnv} [env]
 * @property {string | null} announce  printed when the step starts, or null to stay quiet
 * @property {string} activity         what the heartbeat says is going on ("compiling SQLite")
 * @property {number} [announceAfterMs] print `announce` only once the step has run this long
 *   (a download that fails at once then prints nothing of its own); default 0
 * @property {number} [heartbeatMs]    interval of the "… still <activity>" lines; default 15 s
 * @property {number} [timeoutMs]      kill the command after this long; default none
 * @property {(line: string) => void} [print] where lines go; default stdout
 */

/**
 * "… still compiling SQLite (45 s)": the heartbeat line for a step running `elapsedMs`.
 * @param {string} activity
 * @param {number} elapsedMs
 */
export function heartbeatLine(activity, elapsedMs) {
  return `${PREFIX}   … still ${activity} (${Math.round(elapsedMs / 1000)} s)`;
}

/**
 * Seconds for a summary, one decimal under ten ("3.2 s", "52 s").
 * @param {number} elapsedMs
 */
export function formatSeconds(elapsedMs) {
  const seconds = elapsedMs / 1000;
  return seconds < 10 ? `${seconds.toFixed(1)} s` : `${Math.round(seconds)} s`;
}

/**
 * The captured output of a failed step, framed so it reads as one block.
 * @param {string} commandLine
 * @param {StepResult} result
 */
export function failureBlock(commandLine, result) {
  const why = result.spawnError
    ? `could not start: ${result.spawnError}`
    : result.isTimedOut
      ? `stopped after ${formatSeconds(result.elapsedMs)} (time limit)`
      : `exit code ${result.code}`;
  const body = result.output.trimEnd();
  return [
    `${PREFIX} ---- output of: ${commandLine} ----`,
    ...(body === '' ? ['(no output)'] : [body]),
    `${PREFIX} ---- end of output (${why}) ----`,
  ].join('\n');
}

/**
 * Runs the step; never throws (a spawn failure is a result too).
 * @param {StepOptions} options
 * @returns {Promise<StepResult>}
 */
export function runQuietStep(options) {
  const print = options.print ?? ((line) => console.log(line));
  const startedAt = performance.now();
  const elapsed = () => performance.now() - startedAt;
  let hasAnnounced = false;
  const announce = () => {
    if (hasAnnounced || options.announce === null) return;
    hasAnnounced = true;
    print(options.announce);
  };
  return new Promise((resolve) => {
    /** @type {string[]} */
    const chunks = [];
    let isTimedOut = false;
    /** @type {string | null} */
    let spawnError = null;
    const child = spawn(options.command, options.args, {
      cwd: options.cwd,
      env: options.env ?? process.env,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    child.stdout.on('data', (data) => chunks.push(String(data)));
    child.stderr.on('data', (data) => chunks.push(String(data)));
    const announceTimer = setTimeout(announce, options.announceAfterMs ?? 0);
    const heartbeat = setInterval(() => {
      if (hasAnnounced) print(heartbeatLine(options.activity, elapsed()));
    }, options.heartbeatMs ?? 15_000);
    const deadline =
      options.timeoutMs === undefined
        ? null
        : setTimeout(() => {
            isTimedOut = true;
            child.kill('SIGTERM');
          }, options.timeoutMs);
    const finish = (/** @type {number | null} */ code) => {
      clearTimeout(announceTimer);
      clearInterval(heartbeat);
      if (deadline) clearTimeout(deadline);
      resolve({
        isOk: code === 0 && !isTimedOut && spawnError === null,
        code,
        isTimedOut,
        output: chunks.join(''),
        elapsedMs: elapsed(),
        spawnError,
      });
    };
    child.on('error', (error) => {
      spawnError = error.message;
    });
    child.on('close', (code) => finish(code));
  });
}
