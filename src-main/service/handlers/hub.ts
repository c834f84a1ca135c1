import { existsSync } from 'node:fs';
import { ServiceFailure } from '../contract/result';
import type { HubRepo } from '../contract/hub-schemas';
import type { CoreDeps } from '../core-deps';
import { DEFAULT_HUB_URL, HubClient } from '../hub/hub-client';
import { modelChoicesOf } from '../hub/hub-choices';
import { DownloadJournal } from '../hub/download-journal';
import { HubDownloads } from '../hub/hub-downloads';
import { parseHubRef } from '../hub/hub-ref';
import { deleteModel, removalOf } from '../model-removal';
import type { Handlers } from '../service';
import { modelsDirOf } from './app';

type HubHandlers = Pick<
  Handlers,
  'hub.files' | 'hub.download' | 'hub.downloads' | 'hub.cancel' | 'models.removal' | 'models.delete'
>;

/**
 * The downloads of a core, from the hub at `hubUrl` (else FF_HUB_URL, else huggingface.co) with
 * HF_TOKEN when set; an Error in words when the address is not one.
 */
export function openHubDownloads(
  deps: Pick<CoreDeps, 'dataDir' | 'runtime' | 'hub' | 'clock' | 'origins'>,
  hubUrl: string | undefined,
): HubDownloads | Error {
  const url = hubUrl ?? process.env['FF_HUB_URL'] ?? DEFAULT_HUB_URL;
  let client: HubClient;
  try {
    client = new HubClient(url, process.env['HF_TOKEN'] || null);
  } catch (error) {
    return new Error(
      `the model hub address "${url}" (FF_HUB_URL) is not usable: ${(error as Error).message}`,
    );
  }
  return new HubDownloads({
    client,
    modelsDir: modelsDirOf(deps),
    origins: deps.origins,
    journal: new DownloadJournal(deps.dataDir),
    onChange: (download) => deps.hub.emit('hub.download', download),
    refreshModels: () => deps.runtime.refreshModels(),
    wallNow: () => deps.clock.wallNow(),
  });
}

/** Getting a model from the hub (list a repository, download, cancel) and deleting one from disk. */
export function hubHandlers(deps: CoreDeps, downloads: HubDownloads | Error): HubHandlers {
  const modelsDir = modelsDirOf(deps);
  const usable = (): HubDownloads => {
    if (downloads instanceof Error) throw new ServiceFailure('unavailable', downloads.message);
    return downloads;
  };
  const repoOf = async (text: string, revision: string | null) => {
    const hub = usable();
    const ref = parseHubRef(text, hub.client.baseUrl);
    if (ref instanceof Error) throw new ServiceFailure('invalid_input', ref.message);
    const info = await hub.client.repoInfo(ref.repo, revision ?? ref.revision);
    if (info instanceof Error) throw new ServiceFailure('unavailable', info.message);
    return { hub, info, ...modelChoicesOf(info.repo, info.files) };
  };
  return {
    'hub.files': async ({ repo }): Promise<HubRepo> => {
      const { hub, info, choices, numOtherFiles } = await repoOf(repo, null);
      return {
        repo: info.repo,
        revision: info.revision,
        choices: choices.map((choice) => ({
          filePath: choice.filePath,
          kind: choice.kind,
          modelName: choice.modelName,
          quant: choice.quant,
          numFiles: choice.files.length,
          numBytes: choice.numBytes,
          hasSha256: choice.hasSha256,
          isInModelsFolder: existsSync(hub.placementOf(choice).primary),
        })),
        numOtherFiles,
        accessNote: !info.isGated
          ? null
          : hub.client.hasToken
            ? 'this model is gated: the token in HF_TOKEN must have access to it (its terms accepted on the hub)'
            : 'this model is gated: accept its terms on the hub, then set HF_TOKEN to a token of yours before starting the app',
        freeBytes: await hub.freeBytes(),
      };
    },
    'hub.download': async ({ repo, revision, filePath }) => {
      const { hub, info, choices } = await repoOf(repo, revision);
      const choice = choices.find((c) => c.filePath === filePath);
      if (!choice)
        throw new ServiceFailure('not_found', `${info.repo} has no model file ${filePath} at ${revision}`);
      try {
        return await hub.start(info.repo, info.revision, choice);
      } catch (error) {
        throw new ServiceFailure('unavailable', (error as Error).message);
      }
    },
    'hub.downloads': () => (downloads instanceof Error ? [] : downloads.list()),
    'hub.cancel': async ({ downloadId }) => {
      const download = await usable().cancel(downloadId);
      if (!download) throw new ServiceFailure('not_found', `no download "${downloadId}"`);
      return download;
    },
    'models.removal': ({ modelId }) => removalOf(deps.runtime, modelsDir, modelId),
    'models.delete': async ({ modelId }) => {
      const modelPath = deps.runtime.catalogue.entryOf(modelId)?.path;
      const removal = await deleteModel(deps.runtime, modelsDir, modelId);
      if (modelPath) deps.origins.set(modelPath, null);
      return removal;
    },
  };
}
