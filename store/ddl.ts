/**
 * The schema of `history.db`: the Relavium CLI's
 * `agent_sessions`, `session_messages` and `session_costs` exactly as the
 * upstream file declares them (columns, types, defaults, CHECKs, index
 * names) minus the foreign keys to tables this package does not have
 * (`agents`, `model_catalog`), plus our own tables: `relavium_session_state`,
 * `relavium_session_turns` (provider-engaged turns over the session's life),
 * `relavium_turn_usage` (tokens and spend of each such turn),
 * `relavium_session_leases` (one writer per session),
 * `relavium_open_invocations` (the usage-coverage journal: the calls not
 * yet settled, or settled with spend no write has recorded yet) and
 * `relavium_cost_details` (per model: prompt-cache reads and writes, and
 * the calls whose provider sent no token counts — what `session_costs`
 * has no column for).
 *
 * Every statement is `CREATE … IF NOT EXISTS`: applied to an upstream file,
 * or to a file of an older version of this package, it adds the missing
 * tables and changes no existing object, so older files stay readable (a
 * session written before the journal existed simply has no invocations).
 * Nothing here ever ALTERs or DROPs an upstream object; an older version's
 * own journal (`relavium_invocations`, which kept every call) is replaced
 * by {@linkcode upgradeJournal}, its open calls moved over first.
 *
 * @module
 */
import type { DatabaseSync } from "node:sqlite";

/**
 * The statements, in order. Applying them twice is a no-op.
 */
export const STORE_DDL: readonly string[] = [
  `CREATE TABLE IF NOT EXISTS \`agent_sessions\` (
	\`id\` text PRIMARY KEY NOT NULL,
	\`agent_id\` text,
	\`agent_slug\` text NOT NULL,
	\`agent_snapshot\` text,
	\`title\` text,
	\`model_id\` text,
	\`working_dir\` text,
	\`git_ref\` text,
	\`fs_scope_tier\` text DEFAULT 'sandboxed' NOT NULL,
	\`status\` text DEFAULT 'active' NOT NULL,
	\`context_json\` text DEFAULT '{}' NOT NULL,
	\`total_input_tokens\` integer DEFAULT 0 NOT NULL,
	\`total_output_tokens\` integer DEFAULT 0 NOT NULL,
	\`total_cost_microcents\` integer DEFAULT 0 NOT NULL,
	\`exported_workflow_path\` text,
	\`deleted_at\` integer,
	\`created_at\` integer NOT NULL,
	\`updated_at\` integer NOT NULL,
	CONSTRAINT "agent_sessions_fs_scope_tier_check" CHECK("agent_sessions"."fs_scope_tier" in ('sandboxed', 'project', 'full')),
	CONSTRAINT "agent_sessions_status_check" CHECK("agent_sessions"."status" in ('active', 'idle', 'exported', 'ended'))
)`,
  `CREATE TABLE IF NOT EXISTS \`session_messages\` (
	\`id\` text PRIMARY KEY NOT NULL,
	\`session_id\` text NOT NULL,
	\`sequence_number\` integer NOT NULL,
	\`role\` text NOT NULL,
	\`content\` text,
	\`content_parts\` text,
	\`tool_calls\` text,
	\`tool_call_id\` text,
	\`name\` text,
	\`finish_reason\` text,
	\`model_id\` text,
	\`created_at\` integer NOT NULL,
	\`compaction_dropped_through_sequence\` integer,
	FOREIGN KEY (\`session_id\`) REFERENCES \`agent_sessions\`(\`id\`) ON UPDATE no action ON DELETE cascade
)`,
  `CREATE TABLE IF NOT EXISTS \`session_costs\` (
	\`id\` text PRIMARY KEY NOT NULL,
	\`session_id\` text NOT NULL,
	\`model\` text NOT NULL,
	\`model_catalog_id\` text,
	\`input_tokens\` integer DEFAULT 0 NOT NULL,
	\`output_tokens\` integer DEFAULT 0 NOT NULL,
	\`cost_microcents\` integer DEFAULT 0 NOT NULL,
	\`call_count\` integer DEFAULT 0 NOT NULL,
	\`unpriced_calls\` integer DEFAULT 0 NOT NULL,
	\`created_at\` integer NOT NULL,
	\`updated_at\` integer NOT NULL,
	\`is_legacy\` integer DEFAULT false NOT NULL,
	FOREIGN KEY (\`session_id\`) REFERENCES \`agent_sessions\`(\`id\`) ON UPDATE no action ON DELETE cascade,
	CONSTRAINT "session_costs_model_nonempty" CHECK("session_costs"."model" <> '')
)`,
  `CREATE TABLE IF NOT EXISTS \`relavium_session_state\` (
	\`session_id\` text PRIMARY KEY NOT NULL REFERENCES \`agent_sessions\`(\`id\`) ON DELETE cascade,
	\`effect_turn_high_water\` integer DEFAULT 0 NOT NULL,
	\`total_conservative_microcents\` integer DEFAULT 0 NOT NULL
)`,
  `CREATE TABLE IF NOT EXISTS \`relavium_session_turns\` (
	\`session_id\` text PRIMARY KEY NOT NULL REFERENCES \`agent_sessions\`(\`id\`) ON DELETE cascade,
	\`turns_used\` integer DEFAULT 0 NOT NULL
)`,
  // One row per provider-engaged turn that recorded spend (what the
  // session's per-turn chart reads).
  `CREATE TABLE IF NOT EXISTS \`relavium_turn_usage\` (
	\`session_id\` text NOT NULL REFERENCES \`agent_sessions\`(\`id\`) ON DELETE cascade,
	\`turn_number\` integer NOT NULL CHECK(\`turn_number\` >= 1),
	\`input_tokens\` integer DEFAULT 0 NOT NULL,
	\`output_tokens\` integer DEFAULT 0 NOT NULL,
	\`cost_microcents\` integer DEFAULT 0 NOT NULL,
	PRIMARY KEY (\`session_id\`, \`turn_number\`)
) WITHOUT ROWID`,
  `CREATE TABLE IF NOT EXISTS \`relavium_cost_details\` (
	\`session_id\` text NOT NULL REFERENCES \`agent_sessions\`(\`id\`) ON DELETE cascade,
	\`model\` text NOT NULL CHECK(\`model\` <> ''),
	\`cache_read_tokens\` integer DEFAULT 0 NOT NULL,
	\`cache_write_tokens\` integer DEFAULT 0 NOT NULL,
	\`cache_read_microcents\` integer DEFAULT 0 NOT NULL,
	\`cache_write_microcents\` integer DEFAULT 0 NOT NULL,
	\`usage_unknown_calls\` integer DEFAULT 0 NOT NULL,
	PRIMARY KEY (\`session_id\`, \`model\`)
)`,
  `CREATE TABLE IF NOT EXISTS \`relavium_session_leases\` (
	\`session_id\` text PRIMARY KEY NOT NULL REFERENCES \`agent_sessions\`(\`id\`) ON DELETE cascade,
	\`holder_id\` text NOT NULL CHECK(\`holder_id\` <> ''),
	\`pid\` integer,
	\`hostname\` text,
	\`acquired_at\` integer NOT NULL,
	\`heartbeat_at\` integer NOT NULL
)`,
  // One b-tree (no rowid, no second index): a call's pending row and its
  // removal each touch one page, which the turn's commit has to sync.
  `CREATE TABLE IF NOT EXISTS \`relavium_open_invocations\` (
	\`session_id\` text NOT NULL REFERENCES \`agent_sessions\`(\`id\`) ON DELETE cascade,
	\`id\` text NOT NULL,
	\`purpose\` text NOT NULL CHECK(\`purpose\` in ('turn', 'summary')),
	\`provider\` text NOT NULL,
	\`model\` text NOT NULL,
	\`status\` text DEFAULT 'pending' NOT NULL CHECK(\`status\` in ('pending', 'settled')),
	\`coverage\` text CHECK(\`coverage\` in ('priced', 'unpriced', 'no_usage', 'not_sent')),
	\`input_tokens\` integer DEFAULT 0 NOT NULL,
	\`output_tokens\` integer DEFAULT 0 NOT NULL,
	\`cost_microcents\` integer DEFAULT 0 NOT NULL,
	\`started_at\` integer NOT NULL,
	\`settled_at\` integer,
	\`turn_number\` integer CHECK(\`turn_number\` IS NULL OR \`turn_number\` >= 1),
	PRIMARY KEY (\`session_id\`, \`id\`)
) WITHOUT ROWID`,
  'CREATE INDEX IF NOT EXISTS `idx_agent_sessions_status` ON `agent_sessions` (`status`,"updated_at" desc) WHERE "agent_sessions"."deleted_at" is null',
  'CREATE INDEX IF NOT EXISTS `idx_agent_sessions_agent` ON `agent_sessions` (`agent_id`,"created_at" desc) WHERE "agent_sessions"."agent_id" is not null',
  'CREATE INDEX IF NOT EXISTS `idx_agent_sessions_updated` ON `agent_sessions` ("updated_at" desc,"id" desc) WHERE "agent_sessions"."deleted_at" is null',
  "CREATE UNIQUE INDEX IF NOT EXISTS `idx_session_messages_seq` ON `session_messages` (`session_id`,`sequence_number`)",
  "CREATE INDEX IF NOT EXISTS `idx_session_messages_session` ON `session_messages` (`session_id`,`created_at`)",
  "CREATE INDEX IF NOT EXISTS `idx_session_costs_session` ON `session_costs` (`session_id`,`cost_microcents`)",
  "CREATE UNIQUE INDEX IF NOT EXISTS `idx_session_costs_session_model` ON `session_costs` (`session_id`,`model`,`is_legacy`)",
];

/** Columns each table must have for the store to read and write it. */
const REQUIRED_COLUMNS: Record<string, readonly string[]> = {
  agent_sessions: [
    "id",
    "agent_id",
    "agent_slug",
    "agent_snapshot",
    "title",
    "model_id",
    "working_dir",
    "git_ref",
    "fs_scope_tier",
    "status",
    "context_json",
    "total_input_tokens",
    "total_output_tokens",
    "total_cost_microcents",
    "exported_workflow_path",
    "deleted_at",
    "created_at",
    "updated_at",
  ],
  session_messages: [
    "id",
    "session_id",
    "sequence_number",
    "role",
    "content",
    "content_parts",
    "tool_calls",
    "tool_call_id",
    "name",
    "finish_reason",
    "model_id",
    "created_at",
    "compaction_dropped_through_sequence",
  ],
  session_costs: [
    "id",
    "session_id",
    "model",
    "model_catalog_id",
    "input_tokens",
    "output_tokens",
    "cost_microcents",
    "call_count",
    "unpriced_calls",
    "created_at",
    "updated_at",
    "is_legacy",
  ],
  relavium_session_state: [
    "session_id",
    "effect_turn_high_water",
    "total_conservative_microcents",
  ],
  relavium_session_turns: ["session_id", "turns_used"],
  relavium_turn_usage: [
    "session_id",
    "turn_number",
    "input_tokens",
    "output_tokens",
    "cost_microcents",
  ],
  relavium_cost_details: [
    "session_id",
    "model",
    "cache_read_tokens",
    "cache_write_tokens",
    "cache_read_microcents",
    "cache_write_microcents",
    "usage_unknown_calls",
  ],
  relavium_session_leases: [
    "session_id",
    "holder_id",
    "pid",
    "hostname",
    "acquired_at",
    "heartbeat_at",
  ],
  relavium_open_invocations: [
    "session_id",
    "id",
    "purpose",
    "provider",
    "model",
    "status",
    "coverage",
    "input_tokens",
    "output_tokens",
    "cost_microcents",
    "started_at",
    "settled_at",
    "turn_number",
  ],
};

/**
 * Columns of our own tables that a writer's open adds to a file of an
 * earlier version ({@linkcode upgradeJournal}): like a missing table,
 * not a damaged file.
 */
const ADDED_ON_OPEN: ReadonlySet<string> = new Set([
  "relavium_open_invocations.turn_number",
]);

/**
 * Names the tables whose columns the store needs but the file lacks (an
 * older upstream file). Empty ⇒ the schema is usable.
 *
 * @param db An open database with {@linkcode STORE_DDL} applied.
 * @returns `table.column` entries that are missing.
 */
export function missingColumns(db: DatabaseSync): string[] {
  const missing: string[] = [];
  for (const [table, columns] of Object.entries(REQUIRED_COLUMNS)) {
    const present = new Set<string>();
    for (const row of db.prepare(`PRAGMA table_info(\`${table}\`)`).all()) {
      if (typeof row["name"] === "string") present.add(row["name"]);
    }
    for (const c of columns) if (!present.has(c)) missing.push(`${table}.${c}`);
  }
  return missing;
}

/**
 * Whether `table.column` is a foreign key to `model_catalog` in this file
 * (upstream files have it, ours do not).
 *
 * @param db An open database.
 * @param key The referencing `table` and `column`.
 * @returns `true` when `PRAGMA foreign_key_list(table)` shows it.
 */
export function referencesModelCatalog(
  db: DatabaseSync,
  key: { table: string; column: string },
): boolean {
  const sql = `PRAGMA foreign_key_list(\`${key.table}\`)`;
  for (const row of db.prepare(sql).all()) {
    if (row["from"] === key.column && row["table"] === "model_catalog") {
      return true;
    }
  }
  return false;
}

/** The index names {@linkcode STORE_DDL} creates. */
const OWN_INDEXES: ReadonlySet<string> = new Set(
  STORE_DDL.flatMap((sql) => {
    const m = /INDEX IF NOT EXISTS `([^`]+)`/.exec(sql);
    return m?.[1] === undefined ? [] : [m[1]];
  }),
);

function quoted(name: unknown): string {
  return JSON.stringify(String(name));
}

/**
 * Objects in the file that this version did not create and that would
 * run, or answer, in place of its own on its tables: any trigger on one
 * of its tables (it would run on every write), a view or virtual table
 * named like one of its tables (reads and writes would reach it instead),
 * and an index on one of its tables that is unique, partial or over
 * expressions (it evaluates on every write and can refuse it). A plain
 * index on columns, and anything on other tables (an upstream file's
 * own), is left alone.
 *
 * @param db An open database (read-only is fine).
 * @returns One line per object, naming its kind, name and table; empty ⇒
 * none.
 */
export function foreignObjects(db: DatabaseSync): string[] {
  const ours = new Set(Object.keys(REQUIRED_COLUMNS));
  const out: string[] = [];
  const rows = db.prepare(
    "SELECT type, name, tbl_name, sql FROM sqlite_master ORDER BY type, name",
  ).all();
  for (const row of rows) {
    const { type, name } = row;
    const table = String(row["tbl_name"]);
    const sql = typeof row["sql"] === "string" ? row["sql"] : "";
    if (type === "trigger" && ours.has(table)) {
      out.push(`trigger ${quoted(name)} on ${table}`);
    } else if (type === "view" && ours.has(String(name))) {
      out.push(`view ${quoted(name)} (named like its table)`);
    } else if (
      type === "table" && ours.has(String(name)) &&
      /^\s*CREATE\s+VIRTUAL\s/i.test(sql)
    ) {
      out.push(`virtual table ${quoted(name)} (named like its table)`);
    } else if (
      type === "index" && ours.has(table) && sql !== "" &&
      !OWN_INDEXES.has(String(name)) && runsOnWrite(db, String(name), sql)
    ) {
      out.push(`index ${quoted(name)} on ${table}`);
    }
  }
  return out;
}

/** Whether an index not ours is unique, partial or over expressions. */
function runsOnWrite(db: DatabaseSync, name: string, sql: string): boolean {
  if (/^\s*CREATE\s+UNIQUE\s/i.test(sql) || /\sWHERE\s/i.test(sql)) {
    return true;
  }
  const columns = db.prepare(`PRAGMA index_xinfo(${quoted(name)})`).all();
  return columns.some((c) => c["key"] === 1 && c["cid"] === -2);
}

/**
 * The refusal of a file holding {@linkcode foreignObjects}: names them and
 * how to go on.
 *
 * @param objects The lines of {@linkcode foreignObjects}.
 * @returns The reason of the open fault.
 */
export function foreignObjectsReason(objects: readonly string[]): string {
  return `it holds objects this version did not create, which would run or answer in place of its own: ${
    objects.join("; ")
  } (nothing was changed; drop them, e.g. with the sqlite3 shell, or move the file away to start a new history)`;
}

/** The `PRAGMA user_version` this version writes and reads (it never sets one). */
const KNOWN_USER_VERSION = 0;

/**
 * What keeps this version from writing an existing file, checked before
 * anything is written to it: a `user_version` newer than this version's,
 * a required column missing from a table that exists, or a column this
 * version does not know that is `NOT NULL` without a default (every
 * insert would fail). Tables not created yet are not problems.
 *
 * @param db An open database, before {@linkcode STORE_DDL} is applied.
 * @returns One line per difference, naming the table and column; empty ⇒
 * the file is writable.
 */
export function schemaProblems(db: DatabaseSync): string[] {
  const problems: string[] = [];
  const version = db.prepare("PRAGMA user_version").get()?.["user_version"];
  if (typeof version === "number" && version > KNOWN_USER_VERSION) {
    problems.push(
      `user_version is ${version}, newer than this version's ${KNOWN_USER_VERSION}`,
    );
  }
  for (const [table, columns] of Object.entries(REQUIRED_COLUMNS)) {
    const known = new Set(columns);
    for (const row of db.prepare(`PRAGMA table_info(\`${table}\`)`).all()) {
      const name = row["name"];
      if (
        typeof name === "string" && !known.has(name) &&
        row["notnull"] === 1 && row["dflt_value"] === null && row["pk"] === 0
      ) {
        problems.push(
          `${table}.${name} is a NOT NULL column without a default that this version does not know (it cannot insert rows)`,
        );
      }
    }
  }
  for (const c of missingColumnsOfExisting(db)) {
    problems.push(`${c} is missing`);
  }
  return problems;
}

/**
 * The required columns missing from the tables that exist (a renamed or
 * dropped column), as `table.column`; tables not created yet are skipped.
 * What a read checks before it selects.
 *
 * @param db An open database (read-only is fine).
 * @returns The missing `table.column` entries.
 */
export function missingColumnsOfExisting(db: DatabaseSync): string[] {
  const missing: string[] = [];
  for (const [table, columns] of Object.entries(REQUIRED_COLUMNS)) {
    const rows = db.prepare(`PRAGMA table_info(\`${table}\`)`).all();
    if (rows.length === 0) continue;
    const present = new Set(rows.map((r) => r["name"]));
    for (const c of columns) {
      const name = `${table}.${c}`;
      if (!present.has(c) && !ADDED_ON_OPEN.has(name)) missing.push(name);
    }
  }
  return missing;
}

/**
 * Brings our own journal up to date: `relavium_open_invocations` of its
 * first version gets its `turn_number` column; an older version's journal,
 * which kept every call, is replaced by it (its pending calls, and its
 * settled calls whose spend no write recorded, move over; the old table is
 * dropped).
 * Run inside the open's schema transaction, after {@linkcode STORE_DDL};
 * a file without the old table is left as it is.
 *
 * @param db An open database with {@linkcode STORE_DDL} applied.
 */
export function upgradeJournal(db: DatabaseSync): void {
  const columns = db.prepare("PRAGMA table_info(relavium_open_invocations)")
    .all().map((r) => r["name"]);
  if (!columns.includes("turn_number")) {
    // A file of this table's first version (turn numbers came later).
    db.exec(
      "ALTER TABLE relavium_open_invocations ADD COLUMN turn_number integer CHECK(turn_number IS NULL OR turn_number >= 1)",
    );
  }
  const old = db.prepare(
    "SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'relavium_invocations'",
  ).get();
  if (old === undefined) return;
  db.exec(`INSERT OR IGNORE INTO relavium_open_invocations
    (session_id, id, purpose, provider, model, status, coverage, input_tokens,
    output_tokens, cost_microcents, started_at, settled_at)
    SELECT session_id, id, purpose, provider, model, status, coverage,
    input_tokens, output_tokens, cost_microcents, started_at, settled_at
    FROM relavium_invocations
    WHERE status = 'pending' OR (recorded = 0 AND cost_microcents > 0)`);
  db.exec("DROP TABLE relavium_invocations");
}
