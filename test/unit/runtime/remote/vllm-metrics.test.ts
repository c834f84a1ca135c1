import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { histogramOf, parsePrometheus } from '../../../../src-main/runtime/remote/prometheus';
import type { PromSample } from '../../../../src-main/runtime/remote/prometheus';
import { metricsUrlOf, vllmPhasesBetween } from '../../../../src-main/runtime/remote/vllm-metrics';

const fixture = (name: string) => readFileSync(new URL(`./fixtures/${name}`, import.meta.url), 'utf8');
const parse = (name: string) => parsePrometheus(fixture(name)) as PromSample[];
const MODEL = 'meta-llama/Llama-3.1-8B-Instruct';

describe('Prometheus text and vLLM histograms', () => {
  it('parses samples with labels, +Inf buckets and skips comments', () => {
    const samples = parse('vllm-metrics-after.txt');
    const ttft = histogramOf(samples, 'vllm:time_to_first_token_seconds', { model_name: MODEL })!;
    expect(ttft.count).toBe(14);
    expect(ttft.sum).toBeCloseTo(0.87, 12);
    expect(ttft.buckets.get(Infinity)).toBe(14);
    expect(ttft.buckets.get(0.04)).toBe(5);
  });

  it('a line that is not a sample is an error naming the line', () => {
    const result = parsePrometheus('# HELP x\nx_total 1\nthis is not a sample\n');
    expect(result).toBeInstanceOf(Error);
    expect((result as Error).message).toBe('metrics line 3 is not a sample: this is not a sample');
  });

  it('the phases of a run are the histogram deltas between two scrapes: counts, means, bucket bounds', () => {
    const run = vllmPhasesBetween(parse('vllm-metrics-before.txt'), parse('vllm-metrics-after.txt'), MODEL);
    const byPhase = Object.fromEntries(run.phases.map((p) => [p.phase, p]));
    expect(Object.keys(byPhase)).toEqual(['queue', 'prefill', 'decode', 'ttft']);
    expect(byPhase['ttft']!.numRequests).toBe(10);
    expect(byPhase['ttft']!.meanMs).toBeCloseTo(75, 9); // (0.87 − 0.12) s / 10
    expect(byPhase['queue']!.meanMs).toBeCloseTo(5, 9);
    expect(byPhase['prefill']!.meanMs).toBeCloseTo(50, 9);
    expect(byPhase['decode']!.meanMs).toBeCloseTo(750, 9);
    // TTFT deltas per bucket: ≤20 ms 0, ≤40 ms 2, ≤100 ms 8, ≤250 ms 10 (cumulative): p50 rank 5, p95 rank 10.
    expect(byPhase['ttft']!.p50).toEqual({ loMs: 40, hiMs: 100 });
    expect(byPhase['ttft']!.p95).toEqual({ loMs: 100, hiMs: 250 });
    expect(run.note).toMatch(/any other client/);
  });

  it('a model the server does not serve yields no phases (nothing invented)', () => {
    const run = vllmPhasesBetween(parse('vllm-metrics-before.txt'), parse('vllm-metrics-after.txt'), 'other');
    expect(run.phases).toEqual([]);
  });

  it('metrics live at the origin, beside /v1', () => {
    expect(metricsUrlOf('http://gpu-box:8000/v1')).toBe('http://gpu-box:8000/metrics');
  });
});
