import { createHash, timingSafeEqual } from 'node:crypto';

const digest = (text: string): Buffer => createHash('sha256').update(text, 'utf8').digest();

/**
 * True when the `Authorization` header is `Bearer <apiKey>`. Compares digests in constant
 * time, so the response time says nothing about how much of a guess was right.
 */
export function isAuthorized(header: string | undefined, apiKey: string): boolean {
  const match = /^Bearer\s+(.+)$/i.exec(header?.trim() ?? '');
  if (!match) return false;
  return timingSafeEqual(digest(match[1]!), digest(apiKey));
}
