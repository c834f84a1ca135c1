import { describe, expect, it } from 'vitest';
import { checkHeaders, hostPolicy } from '../../../../src-main/host/http/host-guard';

describe('Host and Origin guard (DNS rebinding)', () => {
  const loopback = hostPolicy('127.0.0.1', 5180);

  it('accepts the local names on the bound port', () => {
    for (const host of ['127.0.0.1:5180', 'localhost:5180', '[::1]:5180', 'LOCALHOST:5180']) {
      expect(checkHeaders(loopback, host, undefined).isAllowed).toBe(true);
    }
    expect(checkHeaders(loopback, 'localhost:5180', 'http://localhost:5180').isAllowed).toBe(true);
  });

  it('refuses a rebound name, another port, a missing Host and foreign or null origins', () => {
    const refused = [
      checkHeaders(loopback, 'evil.example:5180', undefined),
      checkHeaders(loopback, 'localhost:5181', undefined),
      checkHeaders(loopback, 'localhost', undefined),
      checkHeaders(loopback, undefined, undefined),
      checkHeaders(loopback, 'localhost:5180', 'http://evil.example:5180'),
      checkHeaders(loopback, 'localhost:5180', 'null'),
      checkHeaders(loopback, 'localhost:5180', 'http://localhost:9999'),
      checkHeaders(loopback, 'localhost:5180', 'file://'),
      checkHeaders(loopback, '192.168.1.2:5180', undefined),
    ];
    for (const verdict of refused) expect(verdict.isAllowed).toBe(false);
    const verdict = checkHeaders(loopback, 'evil.example:5180', undefined);
    expect(!verdict.isAllowed && verdict.message).toMatch(/DNS-rebinding/);
  });

  it('on 0.0.0.0 accepts IP literals (they cannot be rebound) but still no foreign names', () => {
    const everywhere = hostPolicy('0.0.0.0', 80);
    expect(checkHeaders(everywhere, '192.168.1.2', undefined).isAllowed).toBe(true);
    expect(checkHeaders(everywhere, '[fe80::1]:80', 'http://[fe80::1]').isAllowed).toBe(true);
    expect(checkHeaders(everywhere, 'evil.example', undefined).isAllowed).toBe(false);
  });

  it('accepts a bound non-loopback address and names the user allowed', () => {
    const lan = hostPolicy('192.168.1.2', 5180, ['studio.local']);
    expect(checkHeaders(lan, '192.168.1.2:5180', undefined).isAllowed).toBe(true);
    expect(checkHeaders(lan, 'studio.local:5180', 'http://studio.local:5180').isAllowed).toBe(true);
    expect(checkHeaders(lan, '10.0.0.1:5180', undefined).isAllowed).toBe(false);
  });
});
