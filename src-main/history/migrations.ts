import { statSync } from 'node:fs';
import { performance } from 'node:perf_hooks';
import type Database from 'better-sqlite3';
import type { Log } from '../telemetry/log/log';
import { reasonOf } from '../telemetry/log/log';
import { HistoryUnavailable, toUnavailable } from './errors';
import { v6 } from './migration-v6';

/**
 * Schema v1. Columns are snake_case with their unit (`queue_ms`, `at_wall_ms`); `*_at_ms` are
 * the process's monotonic instants, `*_wall_ms` wall-clock epoch ms. Frozen once shipped:
 * changes go in a new migration, never here.
 */
const V1 = `
CREATE TABLE runs (
  id TEXT PRIMARY KEY,
  name TEXT NOT NULL,
  started_at_wall_ms REAL NOT NULL,
  config_json TEXT NOT NULL DEFAULT '{}'
);

CREATE TABLE requests (
  id INTEGER PRIMARY KEY,
  request_id TEXT NOT NULL,
  run_id TEXT REFERENCES runs(id) ON DELETE CASCADE,
  conversation_id TEXT,
  source TEXT NOT NULL CHECK (source IN ('runtime', 'import')),
  model_id TEXT NOT NULL,
  model_revision TEXT NOT NULL,
  slot_id TEXT,
  is_cold_slot INTEGER NOT NULL CHECK (is_cold_slot IN (0, 1)),
  wall_start_ms REAL NOT NULL,
  arrived_at_ms REAL NOT NULL,
  first_token_at_ms REAL,
  finished_at_ms REAL NOT NULL,
  inbox_ms REAL NOT NULL,
  route_ms REAL NOT NULL,
  slot_load_ms REAL NOT NULL,
  queue_ms REAL NOT NULL,
  requeue_ms REAL NOT NULL,
  lost_prefill_ms REAL NOT NULL,
  activation_ms REAL NOT NULL,
  context_lookup_ms REAL NOT NULL,
  prefill_ms REAL NOT NULL,
  emit_ms REAL NOT NULL,
  unattributed_ms REAL NOT NULL,
  ttft_ms REAL,
  e2e_ms REAL NOT NULL,
  client_ttft_ms REAL,
  transport_ms REAL,
  num_prompt_tokens INTEGER NOT NULL,
  num_cached_tokens INTEGER NOT NULL,
  num_output_tokens INTEGER NOT NULL,
  num_preemptions INTEGER NOT NULL,
  finish_reason TEXT NOT NULL CHECK (finish_reason IN ('stop', 'length', 'cancelled', 'deadline', 'rejected', 'error')),
  error_message TEXT,
  transitions_json TEXT NOT NULL,
  num_itl_gaps INTEGER NOT NULL,
  itl_gaps_f64 BLOB NOT NULL,
  report_f64 BLOB NOT NULL
);
CREATE INDEX requests_by_run ON requests (run_id, id);
CREATE INDEX requests_by_wall_start ON requests (wall_start_ms);
CREATE INDEX requests_by_request_id ON requests (request_id);

CREATE TABLE slot_events (
  id INTEGER PRIMARY KEY,
  slot_id TEXT NOT NULL,
  model_id TEXT NOT NULL,
  from_status TEXT NOT NULL CHECK (from_status IN ('empty', 'prefetching', 'resident', 'active', 'evicting', 'failed')),
  to_status TEXT NOT NULL CHECK (to_status IN ('empty', 'prefetching', 'resident', 'active', 'evicting', 'failed')),
  cause TEXT NOT NULL CHECK (cause IN ('request', 'prefetch', 'ttl', 'budget', 'manual', 'error')),
  reason TEXT,
  at_wall_ms REAL NOT NULL
);
CREATE INDEX slot_events_by_time ON slot_events (at_wall_ms);

CREATE TABLE conversations (
  id TEXT PRIMARY KEY,
  title TEXT NOT NULL,
  created_at_wall_ms REAL NOT NULL,
  updated_at_wall_ms REAL NOT NULL
);

CREATE TABLE messages (
  id TEXT PRIMARY KEY,
  conversation_id TEXT NOT NULL REFERENCES conversations(id) ON DELETE CASCADE,
  role TEXT NOT NULL CHECK (role IN ('system', 'user', 'assistant')),
  content TEXT NOT NULL,
  request_id TEXT,
  created_at_wall_ms REAL NOT NULL
);
CREATE INDEX messages_by_conversation ON messages (conversation_id, created_at_wall_ms);

CREATE TABLE settings (
  key TEXT PRIMARY KEY,
  value_json TEXT NOT NULL
);
`;

/**
 * Schema v2: conversations become trees. A message points at its parent (regenerated answers
 * and edited questions are siblings: versions of a turn), the conversation remembers the leaf
 * of the branch on screen and its settings; an answer keeps its finish reason and what its
 * request was planned with (`meta_json`: forecast, messages left out to fit the context).
 * Existing conversations become one branch, each message the child of the one before it.
 */
const V2 = `
ALTER TABLE messages ADD COLUMN parent_id TEXT;
ALTER TABLE messages ADD COLUMN finish_reason TEXT
  CHECK (finish_reason IS NULL OR finish_reason IN ('stop', 'length', 'cancelled', 'deadline', 'rejected', 'error'));
ALTER TABLE messages ADD COLUMN meta_json TEXT NOT NULL DEFAULT '{}';
ALTER TABLE conversations ADD COLUMN leaf_message_id TEXT;
ALTER TABLE conversations ADD COLUMN settings_json TEXT NOT NULL DEFAULT '{}';
UPDATE messages SET parent_id = (
  SELECT p.id FROM messages p
  WHERE p.conversation_id = messages.conversation_id
    AND (p.created_at_wall_ms < messages.created_at_wall_ms
      OR (p.created_at_wall_ms = messages.created_at_wall_ms AND p.rowid < messages.rowid))
  ORDER BY p.created_at_wall_ms DESC, p.rowid DESC LIMIT 1);
UPDATE conversations SET leaf_message_id = (
  SELECT m.id FROM messages m WHERE m.conversation_id = conversations.id
  ORDER BY m.created_at_wall_ms DESC, m.rowid DESC LIMIT 1);
CREATE INDEX messages_by_parent ON messages (conversation_id, parent_id);
`;

/**
 * Schema v3: each request keeps its diagnosis (why its first token took as long as it did:
 * page misses, the cause of a cold slot, who was ahead in the queue) as JSON; null for rows
 * written before it existed and for imports that did not carry one.
 */
const V3 = `
ALTER TABLE requests ADD COLUMN diagnosis_json TEXT;
`;

/**
 * Schema v4: the client boundary. `client_e2e_ms` (client send → last chunk, the client's
 * clock) and `network_in_ms` (client send → arrival, only from stamps on this process's
 * clock). The packed report row grows by the same two values, NaN (absent) for older rows
 * (little-endian 0x7FF8000000000000).
 */
const V4 = `
ALTER TABLE requests ADD COLUMN client_e2e_ms REAL;
ALTER TABLE requests ADD COLUMN network_in_ms REAL;
UPDATE requests SET report_f64 = report_f64 || x'000000000000F87F000000000000F87F';
`;

/**
 * Schema v5: a request served by a remote engine keeps what that adds (the endpoint, what the
 * server reported, client stamps, the placement of the server's stamps or why not) as JSON;
 * null for requests this app ran itself and for rows written before. The packed report row
 * grows by `isRemote`, 0 for every older row (they were all served here).
 */
const V5 = `
ALTER TABLE requests ADD COLUMN remote_json TEXT;
UPDATE requests SET report_f64 = report_f64 || x'0000000000000000';
`;

/**
 * Schema v7: the index of the context pages kept on disk (runtime/pages/disk-pages.ts), one
 * row per page file, so a restart knows what is on disk without reading the pages: its
 * identity (model, tokenizer and layout revisions; the layout names K/V dtype, geometry and
 * page size), its place in its chain, its token ids (int32 little-endian), the file's length
 * and SHA-256, and when it was last used (least recently used goes first).
 */
const V7 = `
CREATE TABLE context_pages (
  file_name TEXT PRIMARY KEY,
  model_revision TEXT NOT NULL,
  tokenizer_revision TEXT NOT NULL,
  layout_revision TEXT NOT NULL,
  page_size_tokens INTEGER NOT NULL,
  page_index INTEGER NOT NULL,
  parent_hash TEXT NOT NULL,
  chain_hash TEXT NOT NULL,
  token_ids BLOB NOT NULL,
  size_bytes INTEGER NOT NULL,
  checksum_sha256 TEXT NOT NULL,
  last_used_wall_ms REAL NOT NULL
);
CREATE INDEX context_pages_by_use ON context_pages (last_used_wall_ms);
`;

/**
 * Schema v8: which remembered context pages each conversation's requests used or wrote, as the
 * last page (identity, place, chain hash) a request held; the pages before it follow from the
 * chain. Deleting a conversation forgets the pages no remaining conversation reaches this way.
 */
const V8 = `
CREATE TABLE conversation_pages (
  conversation_id TEXT NOT NULL,
  identity_key TEXT NOT NULL,
  page_index INTEGER NOT NULL,
  chain_hash TEXT NOT NULL,
  PRIMARY KEY (conversation_id, identity_key, page_index, chain_hash)
) WITHOUT ROWID;
`;

/**
 * Schema v9: the read of remembered context from disk as its own column (a share of queue_ms,
 * as the answer's bar draws it), filled for stored rows from their diagnosis.
 */
const V9 = `
ALTER TABLE requests ADD COLUMN disk_read_ms REAL;
UPDATE requests SET disk_read_ms = coalesce(json_extract(diagnosis_json, '$.diskRead.readMs'), 0)
  WHERE diagnosis_json IS NOT NULL;
`;

/**
 * Schema v10: remembered token ids of text pieces (runtime/tokenize/remembered-token-ids.ts),
 * so a restart does not tokenize a resumed conversation again. Keyed by the tokenizer's
 * revision with the encoding code's, and by a SHA-256 of the piece's exact text (not kept).
 */
const V10 = `
CREATE TABLE token_pieces (
  tokenizer_key TEXT NOT NULL,
  text_sha256 TEXT NOT NULL,
  token_ids BLOB NOT NULL,
  last_used_wall_ms REAL NOT NULL,
  PRIMARY KEY (tokenizer_key, text_sha256)
) WITHOUT ROWID;
CREATE INDEX token_pieces_by_use ON token_pieces (last_used_wall_ms);
`;

/**
 * Schema v11: a client's figures reported after its timeline was stored get a record of their
 * own, keyed by request id (src-main/history/codec/client-figures.ts), so a stored `requests` row
 * is never updated. `figures_f64` holds the packed report row's copies (client TTFT, client
 * E2E, inbound network; float64, NaN unknown), laid over the packed row when reports load.
 * Rows a late report reached before (served here, not remote) have theirs copied over, the
 * newest row's per request id, and keep their own values too. (Earlier steps' `||` left some
 * packed rows stored as text: they are read as blobs.) A request's figures leave with its
 * last row.
 */
const V11 = `
CREATE TABLE client_figures (
  request_id TEXT PRIMARY KEY,
  client_ttft_ms REAL NOT NULL,
  transport_ms REAL,
  client_e2e_ms REAL,
  network_in_ms REAL,
  figures_f64 BLOB NOT NULL
) WITHOUT ROWID;
INSERT OR REPLACE INTO client_figures
  (request_id, client_ttft_ms, transport_ms, client_e2e_ms, network_in_ms, figures_f64)
  SELECT request_id, client_ttft_ms, transport_ms, client_e2e_ms, network_in_ms,
    CAST(substr(CAST(report_f64 AS BLOB), 33, 8) || substr(CAST(report_f64 AS BLOB), 177, 16) AS BLOB)
  FROM requests
  WHERE client_ttft_ms IS NOT NULL AND source = 'runtime' AND remote_json IS NULL
  ORDER BY id;
CREATE TRIGGER client_figures_leave_with_their_request AFTER DELETE ON requests
  WHEN NOT EXISTS (SELECT 1 FROM requests WHERE request_id = OLD.request_id)
  BEGIN DELETE FROM client_figures WHERE request_id = OLD.request_id; END;
`;

/** What a schema step written in code did, told once it has committed (see migrate). */
export interface StepReport {
  /** What it converted, for the upgrade's log line. */
  summary: string;
  /** What it could not carry over and what became of it; null when everything converted. */
  problem: string | null;
}

/**
 * One schema step: SQL to run, or a function for a step SQL cannot express alone (in a file of
 * its own, `migration-v<N>.ts`).
 */
export type Migration = string | ((db: Database.Database) => StepReport);

/** Every migration in order; migration i takes `user_version` from i to i + 1 (v6: migration-v6.ts). */
export const MIGRATIONS: readonly Migration[] = [V1, V2, V3, V4, V5, v6, V7, V8, V9, V10, V11];

/** The schema version this build writes. */
export const SCHEMA_VERSION = MIGRATIONS.length;

/**
 * Brings the database up to SCHEMA_VERSION, one transaction per migration, recording progress
 * in `PRAGMA user_version`. A newer file is refused rather than written with an older schema.
 * A step that fails is rolled back and named in the error; steps before it stay committed.
 * After an upgrade the WAL is checkpointed and truncated (a large table rewrite leaves a WAL
 * as big as the table otherwise, kept until close), and `log` hears how long the upgrade took,
 * what it converted and any rows it could not carry over. A new file is created silently.
 */
export function migrate(db: Database.Database, path: string, log: Log): void {
  const version = db.pragma('user_version', { simple: true }) as number;
  if (version > SCHEMA_VERSION)
    throw new HistoryUnavailable(
      'newer-schema',
      path,
      `schema version ${version}, this app knows up to ${SCHEMA_VERSION}`,
    );
  if (version === SCHEMA_VERSION) return;
  const startedAt = performance.now();
  const summaries: string[] = [];
  for (let v = version; v < SCHEMA_VERSION; v++) {
    const report = runStep(db, path, v);
    if (report?.problem) log.warn('store', `upgrading history to schema ${v + 1}: ${report.problem}`);
    if (report) summaries.push(`schema ${v + 1}: ${report.summary}`);
  }
  const walBytes = walSize(path);
  const checkpoint = checkpointWal(db);
  const upgradeMs = Math.round(performance.now() - startedAt);
  if (version === 0) {
    if (checkpoint.problem) log.warn('store', checkpoint.problem);
    return;
  }
  const wal = walBytes === null ? '' : `, WAL of ${(walBytes / 1e6).toFixed(1)} MB`;
  log.warn(
    'store',
    `history upgraded from schema ${version} to ${SCHEMA_VERSION} in ${upgradeMs} ms` +
      `${summaries.length > 0 ? ` (${summaries.join('; ')})` : ''}${wal} ` +
      (checkpoint.problem ?? 'checkpointed and truncated'),
  );
}

/** Runs migration `v` (user_version v → v + 1) in its own transaction. */
function runStep(db: Database.Database, path: string, v: number): StepReport | null {
  const migration = MIGRATIONS[v]!;
  let report: StepReport | null = null;
  try {
    db.transaction(() => {
      if (typeof migration === 'string') db.exec(migration);
      else report = migration(db);
      db.pragma(`user_version = ${v + 1}`);
    })();
  } catch (error) {
    const cause = toUnavailable(error, path);
    throw new HistoryUnavailable(
      cause.reason,
      path,
      v === 0
        ? `creating its tables failed and was rolled back: ${cause.detail}`
        : `upgrading it to schema ${v + 1} failed and was rolled back, so the file is unchanged ` +
            `by that step (still schema ${v}): ${cause.detail}`,
    );
  }
  return report;
}

/** Bytes in the file's WAL, or null when there is none (a database in memory). */
function walSize(path: string): number | null {
  try {
    return statSync(`${path}-wal`).size;
  } catch {
    return null; // no WAL file: nothing to report about it
  }
}

/**
 * Copies the WAL into the database and truncates it. A failure (a reader holding an old
 * snapshot, no room to grow the file) leaves the upgrade committed in the WAL, where SQLite
 * checkpoints it on later commits; it is reported, not thrown.
 */
function checkpointWal(db: Database.Database): { problem: string | null } {
  try {
    const [result] = db.pragma('wal_checkpoint(TRUNCATE)') as { busy: number }[];
    return {
      problem: result?.busy ? 'not checkpointed: another connection is reading the history' : null,
    };
  } catch (error) {
    return { problem: `not checkpointed (SQLite retries on later commits): ${reasonOf(error)}` };
  }
}
