import type { MethodName } from '../../service/contract/methods';

// The IPC channel names shared by the main process and the preload. Import-free at run time
// (type imports only), because the sandboxed preload bundles this file and may load nothing
// but 'electron'.

/** Prefix of the one invoke channel per contract method: `ff:call:<method>`. */
export const CALL_CHANNEL_PREFIX = 'ff:call:';

/** The one channel main uses to push event batches (`PushedEvent[]`) to the window. */
export const EVENTS_CHANNEL = 'ff:events';

/**
 * The renderer argument (webPreferences.additionalArguments) naming every contract method.
 * The preload cannot bundle the contract's zod schemas, so main, which derives the names from
 * METHODS, hands them over; nothing types the list out a second time.
 */
export const METHODS_ARGUMENT_PREFIX = '--ff-methods=';

/** What a method name looks like (`room.verb`): anything else in the argument is ignored. */
const METHOD_NAME_PATTERN = /^[a-z]+\.[A-Za-z]+$/;

/** The invoke channel of one method. */
export function callChannel(method: MethodName): string {
  return `${CALL_CHANNEL_PREFIX}${method}`;
}

/** The renderer argument that carries `methods` to the preload. */
export function methodsArgument(methods: readonly MethodName[]): string {
  return `${METHODS_ARGUMENT_PREFIX}${methods.join(',')}`;
}

/** The method names main passed in `argv`; throws when the argument is missing (a broken launch). */
export function methodsFromArgv(argv: readonly string[]): MethodName[] {
  const argument = argv.find((arg) => arg.startsWith(METHODS_ARGUMENT_PREFIX));
  if (argument === undefined)
    throw new Error(`the main process passed no ${METHODS_ARGUMENT_PREFIX}… argument to the preload`);
  return argument
    .slice(METHODS_ARGUMENT_PREFIX.length)
    .split(',')
    .filter((name) => METHOD_NAME_PATTERN.test(name)) as MethodName[];
}
