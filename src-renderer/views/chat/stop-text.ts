/**
 * A stop string as typed in one line of the settings: `\n` stands for a line break, `\t` for a
 * tab and `\\` for a backslash, so the usual stops ("\n", "\n\n") can be typed at all.
 */
export function readStopText(typed: string): string {
  return typed.replace(/\\(n|t|\\)/g, (_, code: string) =>
    code === 'n' ? '\n' : code === 't' ? '\t' : '\\',
  );
}

/** A stop string as one line of the settings shows it (readStopText's inverse). */
export function showStopText(stop: string): string {
  return stop.replace(/\\/g, '\\\\').replace(/\n/g, '\\n').replace(/\t/g, '\\t');
}
