/** Test helper: a CSP string as directive name → sources (for asserting on policies). */
export function parseCsp(policy: string): Map<string, string[]> {
  return new Map(
    policy
      .split(';')
      .map((part) => part.trim().split(/\s+/))
      .filter((words) => words[0] !== '')
      .map(([name, ...sources]) => [name!, sources]),
  );
}
