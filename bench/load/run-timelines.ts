import type { History } from '../../src-main/history/history';
import { judgeClientTtft } from '../../src-main/telemetry/timeline/client-ttft';
import type { ClientFiguresMs, ClientSeenAt } from '../../src-main/telemetry/timeline/derive';
import { deriveClientFigures } from '../../src-main/telemetry/timeline/derive';
import type { Timeline } from '../../src-main/telemetry/timeline/schema';
import { printError } from '../../src-main/printable';

/**
 * The in-process host's finished timelines: each goes to the store and is kept by run id for
 * the phase's server report. A finished timeline is checked and never changed: a client's
 * figures are kept as their own record and joined into a copy when a run's timelines are read
 * (and, through the writer, stored beside the row).
 */
export function runTimelines(store: Pick<History, 'writer'>) {
  const byRun = new Map<string, Timeline[]>();
  const byRequest = new Map<string, Timeline>();
  const figuresOf = new Map<string, ClientFiguresMs>();
  const joined = (t: Timeline): Timeline => {
    const figures = figuresOf.get(t.requestId);
    return figures ? { ...t, ...figures } : t;
  };
  return {
    add: (timeline: Timeline) => {
      store.writer.enqueue(timeline);
      if (!timeline.runId) return;
      byRequest.set(timeline.requestId, timeline);
      const list = byRun.get(timeline.runId) ?? [];
      list.push(timeline);
      byRun.set(timeline.runId, list);
    },
    /** A run's timelines, each with its client's figures when reported. */
    of: (runId: string) => (byRun.get(runId) ?? []).map(joined),
    /**
     * Records a client's figures for a kept timeline, derived from its stamps. The client runs
     * in this process, so its send and the server's arrival share a clock: their difference is
     * the inbound network time.
     */
    setClient: (requestId: string, seen: ClientSeenAt) => {
      const timeline = byRequest.get(requestId);
      const figures = deriveClientFigures(seen, timeline?.arrivedAt ?? null);
      if (!timeline || figures.clientTtftMs === null) return;
      const verdict = judgeClientTtft(timeline.ttftMs, figures.clientTtftMs);
      if (!verdict.isAccepted) return printError(`${requestId}: ${verdict.reason}`);
      figuresOf.set(requestId, figures);
      const { clientTtftMs } = figures;
      store.writer.enqueueClientTtft({
        requestId,
        transportMs: verdict.transportMs,
        ...figures,
        clientTtftMs,
      });
    },
  };
}
