import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { describeIssues } from '../../../src-main/service/contract/result';
import { plainIssueWords } from '../../../src-renderer/bridge/plain-issues';

/** What zod says about `value` against `schema`, as the service words it. */
function serviceWords(schema: z.ZodType, value: unknown): string {
  const parsed = schema.safeParse(value);
  if (parsed.success) throw new Error('expected a failure');
  return describeIssues(parsed.error);
}

const SCHEMA_TEXT = /Too big|Too small|expected string|expected number|Invalid input|Invalid option|received/;

describe('plainIssueWords', () => {
  it('rewrites every default zod message the contract produces into plain words', () => {
    const schema = z
      .object({
        repo: z.string().max(5),
        name: z.string().min(1),
        topK: z.number().int().min(1).max(5),
        mode: z.enum(['simple', 'expert']),
        rev: z.string().regex(/^a$/),
        stop: z.array(z.string()).max(1),
        temperature: z.number().lt(3),
      })
      .strict();
    const text = plainIssueWords(
      serviceWords(schema, {
        repo: 'abcdef',
        name: '',
        topK: 9.5,
        mode: 'x',
        rev: 'b',
        stop: ['a', 'b'],
        temperature: 4,
        extra: 1,
      }),
    );
    expect(text).not.toMatch(SCHEMA_TEXT);
    expect(text).toMatch(/^repo: too long \(at most 5 characters\); name: empty; /);
    expect(plainIssueWords(serviceWords(schema, {}))).toMatch(/^repo: missing; name: missing/);
    expect(plainIssueWords(serviceWords(z.string().max(3), 'abcd'))).toBe('too long (at most 3 characters)');
  });

  it('leaves the service’s own sentences alone', () => {
    const sentence = 'ff-austen-mini:fp16 is loaded: unload it first, then delete it.';
    expect(plainIssueWords(sentence)).toBe(sentence);
  });
});
