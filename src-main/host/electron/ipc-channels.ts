import type { MethodName } from '../../service/contract/methods';

// The IPC channel names shared by the main process and the preload. Zod-free and import-free
// at run time (type imports only), because the sandboxed preload bundles this file and may
// load nothing but 'electron'.

/** Prefix of the one invoke channel per contract method: `ff:call:<method>`. */
export const CALL_CHANNEL_PREFIX = 'ff:call:';

/** The one channel main uses to push event batches (`PushedEvent[]`) to the window. */
export const EVENTS_CHANNEL = 'ff:events';

/**
 * Every contract method name, spelled out so the preload can list them without bundling the
 * zod schemas. Kept equal to METHOD_NAMES: the type checks below fail on a missing or extra
 * name, and a unit test compares the two lists.
 */
export const IPC_METHOD_NAMES = [
  'app.status',
  'models.list',
  'models.quality',
  'slots.list',
  'slots.events',
  'slots.prefetch',
  'slots.evict',
  'slots.keep',
  'pages.stats',
  'engine.stats',
  'chat.listConversations',
  'chat.getConversation',
  'chat.createConversation',
  'chat.renameConversation',
  'chat.deleteConversation',
  'chat.search',
  'chat.updateSettings',
  'chat.defaults',
  'chat.setDefaults',
  'chat.savePreset',
  'chat.forecast',
  'chat.send',
  'chat.regenerate',
  'chat.edit',
  'chat.selectVersion',
  'chat.export',
  'chat.import',
  'chat.cancel',
  'timelines.recent',
  'timelines.reportClientTtft',
  'report.live',
  'runs.list',
  'runs.compare',
  'runs.exportCsv',
  'runs.saveExport',
  'traces.import',
  'api.status',
  'api.setEnabled',
  'bench.start',
] as const satisfies readonly MethodName[];

type MissingMethod = Exclude<MethodName, (typeof IPC_METHOD_NAMES)[number]>;
/** Compile-time proof that no contract method is missing from IPC_METHOD_NAMES. */
const _everyMethodListed: [MissingMethod] extends [never] ? true : MissingMethod = true;
void _everyMethodListed;

/** The invoke channel of one method. */
export function callChannel(method: MethodName): string {
  return `${CALL_CHANNEL_PREFIX}${method}`;
}

/** The method a channel belongs to, or null for any channel outside the allowlist. */
export function methodFromChannel(channel: string): MethodName | null {
  if (!channel.startsWith(CALL_CHANNEL_PREFIX)) return null;
  const name = channel.slice(CALL_CHANNEL_PREFIX.length);
  return (IPC_METHOD_NAMES as readonly string[]).includes(name) ? (name as MethodName) : null;
}
