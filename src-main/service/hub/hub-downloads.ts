// The one owner of downloads from the hub: it starts them, counts their bytes, tells the
// clients, cancels them and renames a finished model into the models folder. A model appears
// in the folder (and so in the catalogue) only once every file of it arrived and was checked:
// until then its files are parts (model-placement.ts), which nothing lists.

import { randomUUID } from 'node:crypto';
import { existsSync } from 'node:fs';
import { statfs } from 'node:fs/promises';
import path from 'node:path';
import { HUB_LIMITS } from '../../limits';
import type { HubDownload } from '../contract/hub-schemas';
import { fetchFile } from './file-download';
import type { HubClient } from './hub-client';
import type { HubModelChoice } from './hub-choices';
import { placeModel, placementOf, prepareParts, removeParts } from './model-placement';
import type { Placement } from './model-placement';
import type { ModelOrigins } from './model-origins';
import type { DownloadJournal, JournalEntry } from './download-journal';

/** What the downloads need from the core: where models go, and what to do once one arrived. */
export interface HubDownloadsDeps {
  client: HubClient;
  modelsDir: string;
  /** Where each downloaded model came from, recorded once it is in place. */
  origins: ModelOrigins;
  /** The downloads not finished yet, kept across restarts so they can be resumed. */
  journal: DownloadJournal;
  /** Every change of a download, throttled to HUB_LIMITS.progressEveryMs (ends are never held back). */
  onChange(download: HubDownload): void;
  /** Rescans the models folder: a finished model is listed before its `done` is told. */
  refreshModels(): Promise<unknown>;
  wallNow(): number;
}

/** A download's bookkeeping before (or without) a run: nothing to abort, nothing to wait for. */
function stopped(snapshot: HubDownload): Running {
  return {
    snapshot,
    abort: new AbortController(),
    lastToldAt: -Infinity,
    rateFrom: null,
    finished: Promise.resolve(),
    isInPlace: false,
  };
}

/** A download the journal kept from an earlier run of the app: failed, its parts kept to resume. */
function unfinishedSnapshot(entry: JournalEntry): HubDownload {
  return {
    ...entry,
    downloadId: randomUUID(),
    state: 'failed',
    bytesDone: 0,
    bytesPerS: null,
    canResume: true,
    error: 'the app closed before it finished: Resume picks it up where it stopped',
    isVerified: null,
  };
}

/** The journal's fields of a download. */
function journalEntryOf(d: HubDownload): JournalEntry {
  const { repo, revision, filePath, modelName, bytesTotal, startedAtWallMs } = d;
  return { repo, revision, filePath, modelName, bytesTotal, startedAtWallMs };
}

/** How long a rate is measured over (ms): long enough to smooth a bursty connection. */
const RATE_WINDOW_MS = 2_000;

interface Running {
  snapshot: HubDownload;
  abort: AbortController;
  lastToldAt: number;
  /** Where the current rate window began (monotonic ms, bytes done then), null before the first bytes. */
  rateFrom: { at: number; bytesDone: number } | null;
  /** Settles once the download stopped and its files are where they stay. */
  finished: Promise<void>;
  /** Set once its files are renamed into place: too late to cancel. */
  isInPlace: boolean;
}

/** Downloads from the hub into the models folder, one owner for their state. */
export class HubDownloads {
  private readonly downloads = new Map<string, Running>();

  constructor(private readonly deps: HubDownloadsDeps) {
    for (const entry of deps.journal.list()) {
      const snapshot = unfinishedSnapshot(entry);
      this.downloads.set(snapshot.downloadId, stopped(snapshot));
    }
  }

  /** The hub the downloads come from. */
  get client(): HubClient {
    return this.deps.client;
  }

  /** Every download of this session, oldest first. */
  list(): HubDownload[] {
    return [...this.downloads.values()].map((d) => d.snapshot);
  }

  /** Where `choice` arrives and goes in the models folder. */
  placementOf(choice: HubModelChoice): Placement {
    return placementOf(choice, this.deps.modelsDir);
  }

  /** Bytes free on the models folder's disk, or null when the system does not say. */
  async freeBytes(): Promise<number | null> {
    const info = await statfs(this.deps.modelsDir).catch(() => null);
    return info ? info.bavail * info.bsize : null;
  }

  /**
   * Starts fetching `choice` of `repo` at `revision`; throws an Error in words when it cannot
   * start (already in the folder, already downloading, no room on the disk).
   */
  async start(repo: string, revision: string, choice: HubModelChoice): Promise<HubDownload> {
    const placement = this.placementOf(choice);
    // A GGUF's every file is its own; a folder's config is shared with its other variants.
    const own = placement.folder === null ? placement.targets : [placement.primary];
    const present = own.find((t) => existsSync(t));
    if (present)
      throw new Error(`${path.relative(this.deps.modelsDir, present)} is already in the models folder`);
    const busy = this.list().find((d) => d.modelName === choice.modelName && isActive(d));
    if (busy) throw new Error(`${choice.modelName} is already downloading`);
    await this.checkDiskSpace(choice.numBytes);
    // A new try of the model replaces its earlier, ended ones in the list.
    for (const [id, d] of this.downloads)
      if (d.snapshot.modelName === choice.modelName) this.downloads.delete(id);
    const snapshot: HubDownload = {
      downloadId: randomUUID(),
      repo,
      revision,
      filePath: choice.filePath,
      modelName: choice.modelName,
      state: 'downloading',
      bytesDone: 0,
      bytesTotal: choice.numBytes,
      bytesPerS: null,
      canResume: false,
      error: null,
      isVerified: null,
      startedAtWallMs: this.deps.wallNow(),
    };
    const running = stopped(snapshot);
    this.downloads.set(snapshot.downloadId, running);
    this.deps.journal.add(journalEntryOf(snapshot));
    running.finished = this.run(running, choice, placement);
    return snapshot;
  }

  /** Stops a download and resolves once its `.part` files are removed; a finished one is left as it is. */
  async cancel(downloadId: string): Promise<HubDownload | null> {
    const running = this.downloads.get(downloadId);
    if (!running) return null;
    if (isActive(running.snapshot) && !running.isInPlace) {
      this.update(running, { state: 'cancelled', error: null }, true);
      running.abort.abort();
      await running.finished;
    }
    return running.snapshot;
  }

  /** Stops every download at shutdown, keeping their `.part` files so a later start resumes them. */
  async close(): Promise<void> {
    const stopping = [...this.downloads.values()].filter((d) => isActive(d.snapshot));
    for (const running of stopping) {
      const error = 'the app closed before it finished: Resume picks it up where it stopped';
      this.update(running, { state: 'failed', canResume: true, error }, true);
      running.abort.abort();
    }
    await Promise.all(stopping.map((d) => d.finished));
  }

  private async run(running: Running, choice: HubModelChoice, placement: Placement): Promise<void> {
    let bytesBefore = 0;
    let isVerified = true;
    try {
      await prepareParts(placement);
      for (const [i, { file }] of choice.files.entries()) {
        const before = bytesBefore;
        const outcome = await fetchFile({
          url: this.deps.client.fileUrl(running.snapshot.repo, running.snapshot.revision, file.path),
          headers: this.deps.client.headers(),
          partPath: placement.parts[i]!,
          numBytes: file.numBytes,
          check: file.check,
          signal: running.abort.signal,
          onBytes: (numBytes) => this.update(running, { state: 'downloading', bytesDone: before + numBytes }),
          onVerifying: () => this.update(running, { state: 'verifying' }),
        });
        isVerified &&= outcome.isVerified;
        bytesBefore += file.numBytes ?? 0;
      }
      running.isInPlace = true;
      await placeModel(placement);
      const modelPath = placement.folder ?? placement.primary;
      this.deps.origins.set(modelPath, originWords(running.snapshot, this.deps.client.baseUrl));
    } catch (error) {
      // A cancel frees the parts; closing the app keeps them (and the journal's line) for a resume.
      if (running.snapshot.state === 'cancelled') {
        await removeParts(placement);
        this.deps.journal.remove(choice.modelName);
      }
      if (running.abort.signal.aborted) return;
      const canResume = (error as { canResume?: boolean }).canResume === true;
      if (!canResume) {
        await removeParts(placement);
        this.deps.journal.remove(choice.modelName);
      }
      const kept = canResume ? ' (what arrived is kept: Resume picks it up there)' : '';
      this.update(running, { state: 'failed', canResume, error: `${(error as Error).message}${kept}` }, true);
      return;
    }
    this.deps.journal.remove(choice.modelName);
    await this.deps.refreshModels().catch(() => undefined); // the panel's next look lists it anyway
    this.update(running, { state: 'done', bytesDone: choice.numBytes, isVerified }, true);
  }

  /** Refuses a download that would leave less than HUB_LIMITS.minFreeBytesAfter on the disk. */
  private async checkDiskSpace(numBytes: number): Promise<void> {
    const free = await this.freeBytes();
    if (free === null || free - numBytes >= HUB_LIMITS.minFreeBytesAfter) return;
    const gb = (n: number) => `${(n / 1024 ** 3).toFixed(1)} GiB`;
    throw new Error(
      `not enough room: it needs ${gb(numBytes)} and the disk has ${gb(free)} free (the app keeps ${gb(HUB_LIMITS.minFreeBytesAfter)} free)`,
    );
  }

  /** Changes a download and tells the clients: at once for an end, else at most every progressEveryMs. */
  private update(running: Running, patch: Partial<HubDownload>, isEnd = false): void {
    if (!isActive(running.snapshot)) return;
    const now = performance.now();
    running.snapshot = { ...running.snapshot, ...patch, ...rateOf(running, patch, now) };
    if (!isEnd && now - running.lastToldAt < HUB_LIMITS.progressEveryMs) return;
    running.lastToldAt = now;
    this.deps.onChange(running.snapshot);
  }
}

/**
 * The download's rate over the last RATE_WINDOW_MS (bytes a second), measured from its own
 * bytes and clock; null while checking or before a window has passed.
 */
function rateOf(running: Running, patch: Partial<HubDownload>, now: number): Partial<HubDownload> {
  if (patch.state !== undefined && patch.state !== 'downloading') {
    running.rateFrom = null;
    return { bytesPerS: null };
  }
  if (patch.bytesDone === undefined) return {};
  if (running.rateFrom === null) running.rateFrom = { at: now, bytesDone: patch.bytesDone };
  const elapsedMs = now - running.rateFrom.at;
  if (elapsedMs < RATE_WINDOW_MS) return {};
  const bytesPerS = ((patch.bytesDone - running.rateFrom.bytesDone) * 1000) / elapsedMs;
  running.rateFrom = { at: now, bytesDone: patch.bytesDone };
  return { bytesPerS: Math.max(0, Math.round(bytesPerS)) };
}

/** Where a download came from, as the lists say it: `someone/Model-GGUF at 0123abc (huggingface.co)`. */
function originWords(download: HubDownload, hubUrl: string): string {
  return `${download.repo} at ${download.revision.slice(0, 7)} (${new URL(hubUrl).host})`;
}

function isActive(download: HubDownload): boolean {
  return download.state === 'downloading' || download.state === 'verifying';
}
