import { randomUUID } from 'node:crypto';
import type Database from 'better-sqlite3';
import type { Log } from '../telemetry/log/log';
import { consoleLog } from '../telemetry/log/log';
import type { Timeline } from '../telemetry/timeline/schema';
import { HISTORY_LIMITS } from '../limits';
import type { HistoryUnavailable } from './errors';
import { isRetryableWriteError, toUnavailable } from './errors';
import type { HistoryHealth } from './health';
import { damagedHealth, worseHealth } from './health';
import { applySpilledChats, pendingChats } from './pending-chats';
import { printError } from '../printable';
import type { SpillContent } from './spill';
import { replaySpills, spillSize, writeSpill } from './spill';
import { damageOf, openDatabase } from './open';
import type { ChatQueries } from './queries/chat-records';
import { chatQueries } from './queries/chats';
import type { PreferenceQueries } from './queries/preferences';
import type { DiskPageRows } from '../runtime/pages/disk-page-rows';
import type { TokenIdRows } from '../runtime/tokenize/token-id-rows';
import { contextPageQueries } from './queries/context-pages';
import { tokenPieceQueries } from './queries/token-pieces';
import { preferenceQueries } from './queries/preferences';
import type { RunQueries } from './queries/runs';
import { RunConfigSchema, runQueries } from './queries/runs';
import type { SlotEventQueries } from './queries/slot-events';
import { slotEventQueries } from './queries/slot-events';
import type { TimelineQueries } from './queries/timelines';
import { timelineQueries } from './queries/timelines';
import type { RetentionControl } from './retention';
import { retentionControl } from './retention';
import type { SlotEventRecord } from '../telemetry/residency/schema';
import type { WriterOptions, WriterStats } from './writer/batched-writer';
import { BatchedWriter } from './writer/batched-writer';
import type { FlushTimer } from './writer/flush-timer';
import { eventLoopFlushTimer } from './writer/flush-timer';
import { sqliteSink } from './writer/sqlite-sink';
import type { ClientTtftUpdate } from './writer/batch';

/** The writing side the serving path sees: every call O(1), none touches the disk. */
export interface HistoryWriter {
  enqueue(timeline: Timeline): void;
  enqueueSlotEvent(event: SlotEventRecord): void;
  /**
   * Stores a client TTFT that judgeClientTtft accepted, with the transport it derived (and the
   * client's E2E and inbound network time when known).
   */
  enqueueClientTtft(update: ClientTtftUpdate): void;
  /** Writes everything queued, synchronously (shutdown). */
  flush(): void;
  readonly stats: WriterStats;
}

/**
 * The history store: SQLite when it can be opened, otherwise the same surface with
 * persistence off (`isPersistent` false, `unavailable` saying why), so the app keeps serving.
 */
export interface History {
  readonly isPersistent: boolean;
  readonly unavailable: HistoryUnavailable | null;
  /** While persistent: `ok`, or degraded (busy, full) with the reason while writes wait in memory. */
  readonly health: HistoryHealth;
  readonly writer: HistoryWriter;
  readonly timelines: TimelineQueries;
  readonly runs: RunQueries;
  readonly chats: ChatQueries;
  readonly slotEvents: SlotEventQueries;
  readonly retention: RetentionControl;
  /** Named app settings kept across restarts (nothing is kept with persistence off). */
  readonly preferences: PreferenceQueries;
  /** The index of the context pages kept on disk; null with persistence off (no disk tier). */
  readonly contextPages: DiskPageRows | null;
  /** Remembered token ids of text pieces; null with persistence off (tokenized afresh after a restart). */
  readonly tokenPieces: TokenIdRows | null;
  /** Flushes and closes; the store is unusable afterwards. */
  close(): void;
}

/** Options for a SQLite-backed store. */
export interface SqliteHistoryOptions {
  writer?: WriterOptions;
  /** Told once if writing fails for good after opening (corrupt, read-only, disk full). */
  onUnavailable?: (error: HistoryUnavailable) => void;
  /** Path of a better-sqlite3 addon built for this process's ABI (Electron in development). */
  nativeBinding?: string;
  /** Hears what upgrading an older file did, and (createHistory) prunes that failed; default stderr. */
  log?: Log;
  /** Runs once on the opened connection (tests cap `max_page_count` to make the disk "full"). */
  onOpen?: (db: Database.Database) => void;
}

/** Opens the SQLite history at `path`; throws HistoryUnavailable when it cannot (see createHistory). */
export function openSqliteHistory(path: string, options: SqliteHistoryOptions = {}): History {
  const db = openDatabase(path, { nativeBinding: options.nativeBinding, log: options.log });
  options.onOpen?.(db);
  const log = options.log ?? consoleLog;
  const damage = path === ':memory:' ? null : damageOf(db);
  if (damage !== null) log.warn('store', `the history database failed quick_check at start: ${damage}`);
  const spills =
    path === ':memory:'
      ? null
      : storeSpills(db, path, log, options.writer?.flushTimer ?? eventLoopFlushTimer);
  const health = damage === null ? ({ state: 'ok' } as const) : damagedHealth(path, damage);
  return new SqliteStore(db, path, options, health, () => spills?.cancel());
}

/**
 * Stores what earlier shutdowns kept in spill files (history/spill.ts), and says so. A spill the
 * database refuses for now (the disk is still full) is tried again every fullRetryMs while the
 * app runs, so it is stored once space comes back; one that is not this app's own (another
 * account's file or folder) is said once and never read.
 */
function storeSpills(db: Database.Database, path: string, log: Log, timer: FlushTimer): { cancel(): void } {
  const sink = sqliteSink(db);
  const chats = chatQueries(db, timelineQueries(db), log);
  const apply = (content: SpillContent): void => {
    sink.writeBatch(content.batch);
    applySpilledChats(chats, content.chats);
  };
  const skipped = new Set<string>();
  let retry: { cancel(): void } | null = null;
  let isWaitingTold = false;
  const pass = (): void => {
    retry = null;
    const { numStored, waiting, refused } = replaySpills(db, path, apply, skipped);
    if (numStored > 0)
      log.warn('store', `history: stored ${numStored} item(s) the disk refused at the last shutdown`);
    for (const { file, reason } of refused) {
      skipped.add(file);
      log.warn('store', `history: the spill ${file} is not stored and not read (${reason})`);
    }
    if (waiting.length === 0) return;
    for (const { file, reason } of isWaitingTold ? [] : waiting)
      log.warn(
        'store',
        `history: a spill of an earlier shutdown is not stored yet (${file}: ${reason}); tried again every ${HISTORY_LIMITS.fullRetryMs / 1000} s`,
      );
    isWaitingTold = true;
    retry = timer.later(HISTORY_LIMITS.fullRetryMs, pass);
  };
  pass();
  return { cancel: () => retry?.cancel() };
}

/**
 * Keeps what the disk refused at shutdown in a spill file (stored at the next start) and says
 * what it kept and where, or that it could not; `isTelling` prints it too (a log file may be on
 * the full disk).
 */
function keepAtShutdown(path: string, content: SpillContent, log: Log, isTelling: boolean): void {
  const numItems = spillSize(content);
  if (numItems === 0) return;
  const { timelines, runs, slotEvents, clientTtfts } = content.batch;
  const what =
    `${timelines.length} timeline(s), ${content.chats.length} chat write(s)` +
    (runs.length + slotEvents.length + clientTtfts.length > 0
      ? `, ${runs.length + slotEvents.length + clientTtfts.length} other`
      : '');
  const kept = writeSpill(path, content);
  const message =
    'path' in kept
      ? `history: the disk refused ${numItems} item(s) at shutdown (${what}); kept in ${kept.path}; they are stored at the next start`
      : `history: the disk refused ${numItems} item(s) at shutdown (${what}) and they could not be kept (${kept.error}): they are lost`;
  log.warn('store', message);
  if (isTelling) printError(message);
}

class SqliteStore implements History {
  readonly timelines: TimelineQueries;
  readonly runs: RunQueries;
  readonly chats: ChatQueries;
  readonly slotEvents: SlotEventQueries;
  readonly retention: RetentionControl;
  readonly preferences: PreferenceQueries;
  readonly contextPages: DiskPageRows;
  readonly tokenPieces: TokenIdRows;
  readonly writer: HistoryWriter;
  private lost: HistoryUnavailable | null = null;

  constructor(
    private readonly db: Database.Database,
    path: string,
    options: SqliteHistoryOptions,
    /** What the check at start found: `ok`, or `damaged` with the way out. */
    fileHealth: HistoryHealth,
    /** Stops retrying spills that earlier shutdowns left (the connection is closing). */
    stopSpillRetry: () => void,
  ) {
    this.timelines = timelineQueries(db);
    this.slotEvents = slotEventQueries(db);
    this.retention = retentionControl(db);
    this.preferences = preferenceQueries(db, options.log ?? consoleLog);
    this.contextPages = contextPageQueries(db);
    this.tokenPieces = tokenPieceQueries(db);
    const batched = new BatchedWriter(sqliteSink(db), {
      ...options.writer,
      onFatal: (error) => {
        this.lost = toUnavailable(error, path);
        options.writer?.onFatal?.(error);
        options.onUnavailable?.(this.lost);
      },
    });
    this.runs = retriedRuns(runQueries(db), batched);
    const chats = pendingChats(chatQueries(db, this.timelines, options.log ?? consoleLog));
    this.chats = chats;
    this.healthOf = () => worseHealth(fileHealth, worseHealth(batched.health, chats.health));
    this.writer = {
      enqueue: (t) => batched.enqueue(t),
      enqueueSlotEvent: (e) => batched.enqueueSlotEvent(e),
      enqueueClientTtft: (update) => batched.enqueueClientTtft(update),
      flush: () => batched.flush(),
      get stats() {
        return batched.stats;
      },
    };
    this.close = () => {
      // Shutdown may wait on another process's lock a little; serving never does.
      db.pragma(`busy_timeout = ${HISTORY_LIMITS.closeBusyTimeoutMs}`);
      stopSpillRetry();
      chats.flush();
      const left: SpillContent = { batch: batched.close(), chats: chats.takePending() };
      db.close();
      keepAtShutdown(path, left, options.log ?? consoleLog, options.log !== undefined);
    };
  }

  private readonly healthOf: () => HistoryHealth;

  get isPersistent(): boolean {
    return this.lost === null;
  }

  get health(): HistoryHealth {
    return this.healthOf();
  }

  get unavailable(): HistoryUnavailable | null {
    return this.lost;
  }

  readonly close: () => void;
}

/**
 * Runs are created synchronously (timelines reference them); when the database refuses the
 * row for now (busy, full), it goes to the writer, which writes it before any later timeline.
 */
function retriedRuns(runs: RunQueries, writer: BatchedWriter): RunQueries {
  return {
    ...runs,
    create: (input) => {
      try {
        return runs.create(input);
      } catch (error) {
        if (!isRetryableWriteError(error)) throw error;
        const record = {
          ...input,
          runId: input.runId ?? randomUUID(),
          startedWallMs: input.startedWallMs ?? Date.now(),
        };
        const parsed = { ...record, config: RunConfigSchema.parse(record.config ?? {}) };
        writer.enqueueRun(parsed);
        return { ...parsed, numRequests: 0 };
      }
    },
  };
}
