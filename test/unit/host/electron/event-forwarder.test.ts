import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { deferService } from '../../../../src-main/host/electron/deferred-service';
import { forwardEvents, type EventTarget } from '../../../../src-main/host/electron/event-forwarder';
import type { PushedEvent } from '../../../../src-main/service/contract/events';
import type { ServiceApi } from '../../../../src-main/service/contract/service-api';
import { ServiceDouble } from '../http/service-double';

const stats = (atWallMs: number): PushedEvent => ({
  name: 'engine.stats',
  payload: { atWallMs, numRunning: 0, numWaiting: 0, numSeats: 4, maxQueue: 64 },
});

/** A fake webContents: records sends, can be destroyed. */
class FakeWebContents implements EventTarget {
  readonly sent: { channel: string; batch: PushedEvent[] }[] = [];
  isGone = false;
  isDestroyed(): boolean {
    return this.isGone;
  }
  send(channel: string, batch: PushedEvent[]): void {
    this.sent.push({ channel, batch });
  }
}

beforeEach(() => {
  vi.useFakeTimers();
});
afterEach(() => {
  vi.useRealTimers();
});

describe('forwardEvents', () => {
  it('sends batches on the one events channel', () => {
    const service = new ServiceDouble();
    const target = new FakeWebContents();
    forwardEvents(service, target);
    service.push(stats(1));
    service.push(stats(2));
    vi.advanceTimersByTime(0);
    expect(target.sent).toEqual([{ channel: 'ff:events', batch: [stats(1), stats(2)] }]);
  });

  it('sends nothing to a destroyed page and survives a failing send', () => {
    const service = new ServiceDouble();
    const target = new FakeWebContents();
    const log = vi.fn();
    forwardEvents(service, target, { log });
    target.isGone = true;
    service.push(stats(1));
    vi.advanceTimersByTime(100);
    expect(target.sent).toEqual([]);
    target.isGone = false;
    target.send = () => {
      throw new Error('An object could not be cloned');
    };
    service.push(stats(2));
    vi.advanceTimersByTime(100);
    expect(log).toHaveBeenCalledWith(expect.stringMatching(/could not be cloned/));
  });

  it('stop unsubscribes from the service', () => {
    const service = new ServiceDouble();
    const stop = forwardEvents(service, new FakeWebContents());
    expect(service.listeners.size).toBe(1);
    stop();
    expect(service.listeners.size).toBe(0);
  });
});

describe('deferService', () => {
  it('holds calls and subscriptions until the core is built', async () => {
    const real = new ServiceDouble({ 'runs.list': () => [] });
    let resolve!: (service: ServiceApi) => void;
    const deferred = deferService(new Promise<ServiceApi>((r) => (resolve = r)));
    const received: PushedEvent[] = [];
    deferred.subscribe((event) => received.push(event));
    const early = deferred.subscribe(() => {});
    early();
    const pending = deferred.call('runs.list', {});
    resolve(real);
    await expect(pending).resolves.toEqual({ ok: true, value: [] });
    expect(real.listeners.size).toBe(1);
    real.push(stats(1));
    expect(received).toEqual([stats(1)]);
  });

  it('answers unavailable with the reason when the core failed to start', async () => {
    const deferred = deferService(Promise.reject(new Error('no models folder')));
    await expect(deferred.call('app.status', {})).resolves.toEqual({
      ok: false,
      error: { code: 'unavailable', message: 'the service did not start: no models folder' },
    });
  });
});
