import { describe, expect, it } from 'vitest';
import { EventHub } from '../../../src-main/service/event-hub';
import type { PushedEvent } from '../../../src-main/service/contract/events';

describe('EventHub', () => {
  it('logs a throwing listener with the reason and still serves the others', () => {
    const logged: string[] = [];
    const hub = new EventHub({ warn: (topic, message) => logged.push(`${topic}: ${message}`) });
    const seen: PushedEvent[] = [];
    hub.subscribe(() => {
      throw new Error('socket gone');
    });
    hub.subscribe((event) => seen.push(event));
    hub.emit('request.queued', { requestId: 'r', position: 0 });
    expect(seen).toHaveLength(1);
    expect(logged).toEqual(['events: a request.queued listener failed: socket gone']);
  });
});
