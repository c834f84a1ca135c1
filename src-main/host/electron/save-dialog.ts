import { join } from 'node:path';
import type { SavePathPicker } from '../../service/core-options';
import { EXPORT_FILE_TYPES } from '../../telemetry/trace/export-formats';

/** The options of Electron's `dialog.showSaveDialog` this host sets. */
export interface SaveDialogOptions {
  title: string;
  defaultPath: string;
  filters: { name: string; extensions: string[] }[];
  properties: ['createDirectory', 'showOverwriteConfirmation'];
}

/** The slice of Electron's dialog (and the window it is modal to) the picker uses; a fake in tests. */
export interface SaveDialogHost {
  showSaveDialog(options: SaveDialogOptions): Promise<{ canceled: boolean; filePath?: string }>;
  /** The downloads folder (`app.getPath('downloads')`), where the dialog opens. */
  downloadsDir(): string;
}

/**
 * The desktop app's save dialog for exports: opens in the downloads folder with the suggested
 * file name and the format's extension as filter; cancel resolves to null. The renderer never
 * names a path: the user picks it here, in the main process.
 */
export function createSavePathPicker(host: SaveDialogHost): SavePathPicker {
  return async (fileName, format) => {
    const type = EXPORT_FILE_TYPES[format];
    const result = await host.showSaveDialog({
      title: `Export ${type.label}`,
      defaultPath: join(host.downloadsDir(), fileName),
      filters: [{ name: type.label, extensions: [type.extension.split('.').at(-1)!] }],
      properties: ['createDirectory', 'showOverwriteConfirmation'],
    });
    return result.canceled || !result.filePath ? null : result.filePath;
  };
}
