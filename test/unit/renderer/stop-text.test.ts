import { describe, expect, it } from 'vitest';
import { readStopText, showStopText } from '../../../src-renderer/views/chat/stop-text';

describe('stop strings as typed in the settings', () => {
  it('reads \\n, \\t and \\\\ as a line break, a tab and a backslash', () => {
    expect(readStopText('\\n\\n')).toBe('\n\n');
    expect(readStopText('a\\tb')).toBe('a\tb');
    expect(readStopText('C:\\\\n')).toBe('C:\\n');
    expect(readStopText('###')).toBe('###');
  });

  it('shows a stop string the way it reads back', () => {
    for (const stop of ['\n\n', 'User:', 'a\tb', 'back\\slash', '\\n literally'])
      expect(readStopText(showStopText(stop))).toBe(stop);
    expect(showStopText('\nUser:')).toBe('\\nUser:');
  });
});
