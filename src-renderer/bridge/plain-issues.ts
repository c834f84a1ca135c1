/**
 * Rewrites zod's default issue messages inside a service error into plain words ("repo: Too big:
 * expected string to have <=500 characters" → "repo: too long (at most 500 characters)"), so no
 * schema text reaches a user; messages the service wrote itself pass through unchanged.
 */
export function plainIssueWords(message: string): string {
  return REWRITES.reduce((text, [pattern, words]) => text.replace(pattern, words), message).replace(
    /(^|; )input: /g,
    '$1',
  );
}

/** Zod's default messages (v4 wording) and the plain words each becomes; `$1` is the bound. */
const REWRITES: readonly [RegExp, string][] = [
  [/Too big: expected string to have <=(\d+) characters/g, 'too long (at most $1 characters)'],
  [/Too small: expected string to have >=1 characters/g, 'empty'],
  [/Too small: expected string to have >=(\d+) characters/g, 'too short (at least $1 characters)'],
  [/Too big: expected array to have <=(\d+) items/g, 'too many (at most $1)'],
  [/Too small: expected array to have >=(\d+) items/g, 'too few (at least $1)'],
  [/Too big: expected \w+ to be <=(\S+)/g, 'at most $1'],
  [/Too big: expected \w+ to be <(\S+)/g, 'less than $1'],
  [/Too small: expected \w+ to be >=(\S+)/g, 'at least $1'],
  [/Too small: expected \w+ to be >(\S+)/g, 'more than $1'],
  [/Invalid input: expected int, received number/g, 'a whole number is needed'],
  [/Invalid input: expected \w+, received undefined/g, 'missing'],
  [/Invalid input: expected (\w+), received \w+/g, 'not a $1'],
  [/Invalid option: expected one of (.+?)(?=; |$)/g, 'not one of $1'],
  [/Invalid string: must match pattern \S+/g, 'not in the expected form'],
  [/Unrecognized keys?: (.+?)(?=; |$)/g, 'not a setting this takes: $1'],
  [/Invalid input/g, 'not valid'],
];
