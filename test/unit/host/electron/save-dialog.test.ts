import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { createSavePathPicker } from '../../../../src-main/host/electron/save-dialog';
import type { SaveDialogOptions } from '../../../../src-main/host/electron/save-dialog';

describe('the desktop save dialog for exports', () => {
  it('opens in the downloads folder with the suggested name and the format as filter', async () => {
    const shown: SaveDialogOptions[] = [];
    const pick = createSavePathPicker({
      showSaveDialog: async (options) => {
        shown.push(options);
        return { canceled: false, filePath: '/home/u/Downloads/mine.trace.json' };
      },
      downloadsDir: () => '/home/u/Downloads',
    });
    expect(await pick('first-frame-live-x.trace.json', 'chrome-trace')).toBe(
      '/home/u/Downloads/mine.trace.json',
    );
    expect(shown[0]).toEqual({
      title: 'Export Perfetto',
      defaultPath: join('/home/u/Downloads', 'first-frame-live-x.trace.json'),
      filters: [{ name: 'Perfetto', extensions: ['json'] }],
      properties: ['createDirectory', 'showOverwriteConfirmation'],
    });
  });

  it('answers null when the user cancels', async () => {
    const pick = createSavePathPicker({
      showSaveDialog: async () => ({ canceled: true, filePath: '' }),
      downloadsDir: () => '/tmp',
    });
    expect(await pick('a.jsonl', 'jsonl')).toBeNull();
  });
});
