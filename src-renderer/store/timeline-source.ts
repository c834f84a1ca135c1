import type { Timeline } from '../../src-main/telemetry/timeline/schema';

/** Which requests the Dashboard shows: the chat's answers by default, so a bench's deliberate cold loads never colour them. */
export const DASHBOARD_SOURCES = ['chats', 'runs', 'api', 'all'] as const;
/** One of DASHBOARD_SOURCES. */
export type DashboardSource = (typeof DASHBOARD_SOURCES)[number];

/** Each source in the Dashboard's words. */
export const DASHBOARD_SOURCE_LABELS: Readonly<Record<DashboardSource, string>> = {
  chats: 'chats',
  runs: 'benchmarks and runs',
  api: 'API requests',
  all: 'everything',
};

/**
 * Whether `t` belongs to `source`: a request of a stored run (a benchmark, an experiment, an API
 * client that named a run) is a run's; else one with a conversation is a chat's; the rest came
 * through the API.
 */
export function isFromSource(
  t: Pick<Timeline, 'runId' | 'conversationId'>,
  source: DashboardSource,
): boolean {
  if (source === 'all') return true;
  const own: DashboardSource = t.runId !== null ? 'runs' : t.conversationId !== null ? 'chats' : 'api';
  return own === source;
}
