import { EventEmitter } from 'node:events';
import { describe, expect, it } from 'vitest';
import { guardProcess } from '../../../src-main/host/process-guard';

function guarded() {
  const target = new EventEmitter();
  const logged: string[] = [];
  const told: string[] = [];
  let numStops = 0;
  const uninstall = guardProcess({
    log: { warn: (topic, message) => void logged.push(`[${topic}] ${message}`) },
    logPath: '/data/logs/first-frame.log',
    tell: (message) => void told.push(message),
    stop: () => void (numStops += 1),
    target,
  });
  return { target, logged, told, stops: () => numStops, uninstall };
}

describe('the process guard', () => {
  it('logs a promise rejection nobody handled, with where it came from, and keeps serving', () => {
    const { target, logged, told, stops } = guarded();
    target.emit('unhandledRejection', new Error('store went away'));
    expect(logged).toEqual([
      expect.stringMatching(
        /^\[process\] a promise failed and nothing handled it: store went away \(at .+process-guard\.test\.ts.*\); still serving$/,
      ),
    ]);
    expect([told, stops()]).toEqual([[], 0]);
  });

  it('logs an uncaught exception, tells the user where the log is, and stops the host once', () => {
    const { target, logged, told, stops } = guarded();
    target.emit('uncaughtException', new TypeError('cannot read x of undefined'));
    target.emit('uncaughtException', 'a second one while stopping');
    expect(logged).toEqual([
      expect.stringMatching(/^\[process\] uncaught error: cannot read x of undefined \(at .+\); stopping$/),
      '[process] uncaught error: a second one while stopping (while stopping)',
    ]);
    expect(told).toEqual([
      'First Frame stopped after an unexpected error: cannot read x of undefined. Details are in /data/logs/first-frame.log; start it again to go on (your history is kept).',
    ]);
    expect(stops()).toBe(1);
  });

  it('hears nothing once uninstalled', () => {
    const { target, logged, uninstall } = guarded();
    uninstall();
    expect(target.listenerCount('unhandledRejection') + target.listenerCount('uncaughtException')).toBe(0);
    expect(logged).toEqual([]);
  });
});
