import { saveFileAtomically } from '../../telemetry/trace/save-file';
import { ServiceFailure } from '../contract/result';
import type { CoreDeps } from '../core-deps';
import type { ExportSources } from '../run-export';
import { prepareExport } from '../run-export';
import type { Handlers } from '../service';

type ExportHandlers = Pick<Handlers, 'runs.saveExport'>;

/** Where the core's exports read from: the store and this process's live window. */
export function exportSources(deps: CoreDeps): ExportSources {
  return {
    history: deps.history,
    liveTimelines: () => deps.window.toArray(),
    wallNow: () => deps.clock.wallNow(),
  };
}

/**
 * Exports saved through the host's dialog (the desktop app): checked first, then the user picks
 * a path, then the file is streamed there (complete or not at all).
 */
export function exportHandlers(deps: CoreDeps): ExportHandlers {
  return {
    'runs.saveExport': async (request) => {
      const prepared = prepareExport(exportSources(deps), request);
      if (!deps.pickSavePath)
        throw new ServiceFailure(
          'unavailable',
          `this host has no save dialog: download GET /api/export.${request.format}${request.runId ? `?runId=${encodeURIComponent(request.runId)}` : ''} instead`,
        );
      const filePath = await deps.pickSavePath(prepared.fileName, prepared.format);
      if (filePath === null) return { filePath: null, numRows: 0 };
      const numRows = await saveFileAtomically(filePath, (out) => prepared.write(out));
      return { filePath, numRows };
    },
  };
}
