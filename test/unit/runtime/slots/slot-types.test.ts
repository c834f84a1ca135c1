import { describe, expect, it } from 'vitest';
import { canTransition } from '../../../../src-main/runtime/slots/slot-types';

describe('slot state machine', () => {
  it('allows the design card’s edges', () => {
    for (const [from, to] of [
      ['empty', 'prefetching'],
      ['prefetching', 'resident'],
      ['resident', 'active'],
      ['active', 'resident'],
      ['resident', 'evicting'],
      ['evicting', 'empty'],
      ['prefetching', 'failed'],
      ['failed', 'prefetching'],
      ['resident', 'failed'],
      ['active', 'failed'],
    ] as const)
      expect(canTransition(from, to)).toBe(true);
  });

  it('forbids evicting an active slot or skipping preparation', () => {
    expect(canTransition('active', 'evicting')).toBe(false);
    expect(canTransition('empty', 'resident')).toBe(false);
    expect(canTransition('evicting', 'active')).toBe(false);
  });
});
