import { describe, expect, it } from 'vitest';
import { buildReport } from '../../../../src-main/telemetry/report/build-report';
import { toProfileJson } from '../../../../src-main/telemetry/report/profile-json';
import { SEED_PHASES, SEED_TTFT_PHASES } from '../../../../src-main/telemetry/report/seed-phases';
import type { SeedPhase } from '../../../../src-main/telemetry/report/seed-phases';
import { positiveControlRecords } from '../../../../src-main/telemetry/trace/controls';
import { importTraceLines } from '../../../../src-main/telemetry/trace/import-trace';
import type { SeedRecord } from '../../../../src-main/telemetry/trace/seed-record';
import { BASE_PHASES_MS, seedRecord, traceWhereDominates } from './seed-trace-fixture';
import { timeline } from './timeline-fixture';

async function profile(records: SeedRecord[], options = {}) {
  const { timelines } = await importTraceLines(records.map((r) => JSON.stringify(r)));
  return toProfileJson(buildReport(timelines, options), 'test', 'hand-made trace');
}

/** Means of the base phases with `phase` raised by the mean of 400, 420, 440, 460 (= 430). */
function expectedMeans(phase: SeedPhase): Record<SeedPhase, number> {
  return { ...BASE_PHASES_MS, [phase]: BASE_PHASES_MS[phase] + 430 };
}

describe("client-boundary profile: seed 003's definitions, worked by hand", () => {
  it('gives the positive control its seed 003 figures at the client boundary', async () => {
    const json = await profile(positiveControlRecords());
    // Queue delays 4…520 ms: mean 151.7; client TTFT = 198 + queue: nearest-rank p50 is the 5th
    // of 10 (45 → 243), p95 the 10th (520 → 718); E2E adds 64 × 22 = 1,408 ms.
    expect(json).toMatchObject({
      boundary: 'client',
      ttft_boundary: 'client',
      phase_boundary: 'client',
      requests: 10,
      p50_ttft_ms: 243,
      p95_ttft_ms: 718,
      p95_itl_ms: 22,
      p95_e2e_ms: 2126,
      dominant_ttft_phase: 'queue',
      dominant_ttft_phase_mean_ms: 151.7,
      dominant_e2e_phase: 'stream',
      dominant_e2e_phase_mean_ms: 1408,
    });
    expect(json['phase_means_ms']).toEqual({
      network_in: 18,
      gateway: 6,
      queue: 151.7,
      prefill: 145,
      first_decode: 11,
      network_to_first: 18,
      stream: 1408,
    });
    // The server's own figures stay beside them: 36 ms less TTFT (both network legs).
    expect(json).toMatchObject({ server_p50_ttft_ms: 207, server_p95_ttft_ms: 682, p50_transport_ms: 36 });
  });

  for (const phase of SEED_TTFT_PHASES)
    it(`names ${phase} dominant when it holds most of the client TTFT`, async () => {
      const json = await profile(traceWhereDominates(phase));
      // TTFT per request = 80 + 400 + 20i → 480, 500, 520, 540: p50 is rank 2, p95 rank 4.
      expect(json).toMatchObject({
        p50_ttft_ms: 500,
        p95_ttft_ms: 540,
        p95_itl_ms: 10,
        p95_e2e_ms: 580,
        dominant_ttft_phase: phase,
        dominant_ttft_phase_mean_ms: BASE_PHASES_MS[phase] + 430,
        dominant_e2e_phase: phase,
      });
      expect(json['phase_means_ms']).toEqual(expectedMeans(phase));
    });

  it('names stream dominant end to end when the answer takes longest, with prefill still first for TTFT', async () => {
    const json = await profile(traceWhereDominates('stream'));
    // Stream 440…500 ms over 4 gaps → ITL 110, 115, 120, 125; TTFT 80 for all.
    expect(json).toMatchObject({
      p50_ttft_ms: 80,
      p95_ttft_ms: 80,
      p95_itl_ms: 125,
      p95_e2e_ms: 580,
      dominant_ttft_phase: 'prefill',
      dominant_e2e_phase: 'stream',
      dominant_e2e_phase_mean_ms: 470,
    });
    expect(json['phase_means_ms']).toEqual(expectedMeans('stream'));
  });

  it('reports a network-bound trace at the client, not as prefill at the server (400 of 445 ms in network_to_first)', async () => {
    const phases = {
      network_in: 0,
      gateway: 5,
      queue: 5,
      prefill: 30,
      first_decode: 5,
      network_to_first: 400,
      stream: 40,
    };
    const json = await profile([seedRecord('slow-proxy', 0, phases)], { slo: { ttftMs: 100, itlMs: 50 } });
    expect(json).toMatchObject({
      p95_ttft_ms: 445,
      dominant_ttft_phase: 'network_to_first',
      recommended_ttft_test: expect.stringMatching(/flush streamed chunks/),
      server_p95_ttft_ms: 45,
      server_dominant_ttft_phase: 'prefill',
      goodput: { boundary: 'client', numGood: 0, missedTtftShare: 1 },
    });
    const atServer = await profile([seedRecord('slow-proxy', 0, phases)], {
      slo: { ttftMs: 100, itlMs: 50 },
      boundary: 'server',
    });
    expect(atServer).toMatchObject({ boundary: 'server', goodput: { boundary: 'server', numGood: 1 } });
  });

  it('counts a negative network duration as a broken measurement: kept in TTFT percentiles, out of the phase means', async () => {
    const good = seedRecord('good', 0, BASE_PHASES_MS);
    // The client saw its first token 30 ms before the server sent it: clocks disagree.
    const broken = { ...seedRecord('skewed', 1_000, BASE_PHASES_MS), request_id: 'skewed' };
    broken.first_token_client_ms = broken.first_token_server_ms - 30;
    broken.last_token_client_ms = broken.first_token_client_ms + 40;
    const json = await profile([good, broken]);
    expect(json['broken_measurements']).toMatchObject({ count: 1, requestIds: ['skewed'] });
    expect(json['phase_requests']).toBe(1);
    expect((json['phase_means_ms'] as Record<string, number>)['network_to_first']).toBe(10);
    // Client TTFT of the broken request is 80 − 10 − 30 = 40 ms on its own clock: still counted.
    expect(json).toMatchObject({ p50_ttft_ms: 40, p95_ttft_ms: 80 });
  });

  it('keeps E2E percentiles to completed responses, with the failed or rejected share beside them', () => {
    const completed = [1, 2].map((i) => timeline({ parts: { prefill: 10 * i }, gapsMs: [5] }));
    const rejected = [1, 2].map(() => timeline({ hasFirstToken: false, finish: 'rejected' }));
    const json = toProfileJson(buildReport([...completed, ...rejected]), 'mixed', 'half rejected');
    expect(json).toMatchObject({
      boundary: 'server',
      completed_requests: 2,
      p50_e2e_ms: 15,
      p95_e2e_ms: 25,
      failed_or_rejected_share: 0.5,
    });
  });

  it('lists every phase in phase_means_ms with the server parts nested where they belong', async () => {
    const json = await profile(positiveControlRecords());
    expect(Object.keys(json['phase_means_ms'] as object)).toEqual([...SEED_PHASES]);
    expect(json['phase_parts_ms']).toMatchObject({
      gateway: { inbox: 6, route: 0, slotLoad: 0 },
      queue: { queue: 151.7 },
      first_decode: { emit: 11 },
      network_in: {},
    });
  });
});
