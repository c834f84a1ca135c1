import { describe, expect, it } from 'vitest';
import { nodesInLastRun } from '../../../../src-main/runtime/slot-worker/profiled-nodes';

describe('nodes per decode step from an ONNX Runtime profile', () => {
  it('counts the kernel events inside the last model_run only', () => {
    const node = (name: string, ts: number) => ({ cat: 'Node', name: `${name}_kernel_time`, ts, dur: 1 });
    const events = [
      { cat: 'Session', name: 'model_run', ts: 0, dur: 100 },
      node('a', 10),
      node('b', 20),
      node('c', 30),
      { cat: 'Session', name: 'model_run', ts: 200, dur: 100 },
      node('a', 210),
      { cat: 'Node', name: 'a_fence_before', ts: 211, dur: 0 },
      node('b', 220),
      { cat: 'Session', name: 'session_initialization', ts: 400, dur: 5 },
    ];
    expect(nodesInLastRun(events)).toBe(2);
    expect(() => nodesInLastRun([node('a', 1)])).toThrow(/no model_run/);
  });
});
