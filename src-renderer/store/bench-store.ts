import { createStore } from 'zustand/vanilla';
import type { StoreApi } from 'zustand/vanilla';
import type { PushedEvent } from '../../src-main/service/contract/events';
import type { MethodInput } from '../../src-main/service/contract/methods';
import type { Bridge } from '../bridge/bridge';

/** One benchmark's progress as the Bench view shows it. */
export interface BenchProgress {
  benchId: string;
  /** What this window started; null for a benchmark started elsewhere (known by its events only). */
  kind: MethodInput<'bench.start'>['kind'] | null;
  numDone: number;
  numTotal: number;
  label: string;
  isDone: boolean;
  runId: string | null;
  /** Every run it filed (an experiment: one per arm). */
  runIds: string[];
  error: string | null;
}

/** Benchmarks started from the UI, newest first. */
export interface BenchState {
  benches: BenchProgress[];
  error: string | null;
  start(input: MethodInput<'bench.start'>): Promise<void>;
  onEvents(events: readonly PushedEvent[]): void;
}

/** The bench store: starts benchmarks and follows their progress events. */
export function createBenchStore(bridge: Bridge): StoreApi<BenchState> {
  return createStore<BenchState>()((set, get) => ({
    benches: [],
    error: null,
    async start(input) {
      const result = await bridge.call('bench.start', input);
      if (!result.ok) return set({ error: result.error.message });
      const bench: BenchProgress = {
        benchId: result.value.benchId,
        kind: input.kind,
        numDone: 0,
        numTotal: 0,
        label: 'starting',
        isDone: false,
        runId: null,
        runIds: [],
        error: null,
      };
      set({ benches: [bench, ...get().benches.filter((b) => b.benchId !== bench.benchId)], error: null });
    },
    onEvents(events) {
      let benches = get().benches;
      for (const event of events) {
        if (event.name !== 'bench.progress' && event.name !== 'bench.done') continue;
        const { benchId } = event.payload;
        const patch =
          event.name === 'bench.progress'
            ? { ...event.payload }
            : {
                ...event.payload,
                runIds: event.payload.runIds ?? (event.payload.runId ? [event.payload.runId] : []),
                isDone: true,
              };
        const exists = benches.some((b) => b.benchId === benchId);
        const blank: BenchProgress = {
          benchId,
          kind: null,
          numDone: 0,
          numTotal: 0,
          label: '',
          isDone: false,
          runId: null,
          runIds: [],
          error: null,
        };
        benches = exists
          ? benches.map((b) => (b.benchId === benchId ? { ...b, ...patch } : b))
          : [{ ...blank, ...patch }, ...benches];
      }
      if (benches !== get().benches) set({ benches });
    },
  }));
}
