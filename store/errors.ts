/**
 * Errors the stores throw. Messages are fixed: they never carry parser
 * text, stored values or paths.
 *
 * @module
 */

const BOUNDARY_MESSAGES: Record<SessionMessageBoundaryError["code"], string> = {
  invalid_message: "Cannot use session message: the body is invalid",
  invalid_metadata: "Cannot use session message: the metadata is invalid",
  metadata_mismatch:
    "Cannot use session message: the metadata does not match the body",
  malformed_json: "Cannot use session message: a JSON column is malformed",
};

/**
 * A message row failed validation on write or read. Carries a fixed code
 * and a fixed message: no parser text, no input echo, no `cause`. A failed
 * read fails the whole load; a failed write writes nothing.
 *
 * @example Inspect the code
 * ```ts
 * import { SessionMessageBoundaryError } from "@relavium/session/store";
 * import assert from "node:assert/strict";
 * const e = new SessionMessageBoundaryError("malformed_json");
 * assert.equal(e.code, "malformed_json");
 * assert.equal(e.cause, undefined);
 * ```
 */
export class SessionMessageBoundaryError extends Error {
  /** The fixed failure code: why the message was refused. */
  readonly code:
    | "invalid_message"
    | "invalid_metadata"
    | "metadata_mismatch"
    | "malformed_json";
  /**
   * The stored row's `sequence_number`, when a read names the damaged row
   * (the message itself stays fixed).
   */
  sequenceNumber?: number;

  /**
   * Builds the error for a code.
   *
   * @param code What was wrong.
   */
  constructor(code: SessionMessageBoundaryError["code"]) {
    super(BOUNDARY_MESSAGES[code]);
    this.name = "SessionMessageBoundaryError";
    this.code = code;
  }
}

/**
 * A stored session row (`agent_sessions` or its state) is corrupt: bad
 * JSON in `context_json`/`agent_snapshot`, an invalid context, an unknown
 * status, or an invalid turn-key mark. Fixed message, no `cause`.
 *
 * @example Inspect the code
 * ```ts
 * import { SessionRecordError } from "@relavium/session/store";
 * import assert from "node:assert/strict";
 * assert.equal(new SessionRecordError("invalid_turn_key").code, "invalid_turn_key");
 * ```
 */
export class SessionRecordError extends Error {
  /** What was wrong. */
  readonly code: "invalid_record" | "malformed_json" | "invalid_turn_key";
  /** The `table.column` found invalid, when known. */
  readonly field: string | undefined;

  /**
   * Builds the error for a code.
   *
   * @param code What was wrong.
   * @param field The `table.column` found invalid, named in the message.
   */
  constructor(
    code: "invalid_record" | "malformed_json" | "invalid_turn_key",
    field?: string,
  ) {
    super(
      (code === "invalid_turn_key"
        ? "Cannot allocate a turn key: the stored mark is invalid or exhausted"
        : code === "malformed_json"
        ? "Cannot use session: a JSON column is malformed"
        : "Cannot use session: the stored row is invalid") +
        (field === undefined ? "" : `: ${field}`),
    );
    this.name = "SessionRecordError";
    this.code = code;
    this.field = field;
  }
}

/**
 * A write named a session that does not exist or is soft-deleted.
 *
 * @example Catch it
 * ```ts
 * import { createMemoryStore, SessionNotFoundError } from "@relavium/session/store";
 * import assert from "node:assert/strict";
 * assert.throws(() => createMemoryStore().allocateTurnKey("nope"), SessionNotFoundError);
 * ```
 */
export class SessionNotFoundError extends Error {
  /**
   * Builds the error (the id is not echoed in the message).
   */
  constructor() {
    super("Cannot write session: no visible session has that id");
    this.name = "SessionNotFoundError";
  }
}

/**
 * The store file could not be opened or prepared: a bad path (a folder, a
 * symbolic link), a file that is not a database or is corrupt,
 * permissions, a lock held by another process, or a schema this version
 * cannot write (missing or unknown required columns, a newer
 * `user_version`). The CLI maps it to exit 1. The message names the cause
 * (never a stored value); `cause` holds the underlying failure.
 *
 * @example Catch it
 * ```ts
 * import { openSqliteStore, StoreOpenError } from "@relavium/session/store";
 * import assert from "node:assert/strict";
 * const dir = await Deno.makeTempDir();
 * await Deno.writeTextFile(`${dir}/bad.db`, "not a database ".repeat(20));
 * assert.throws(
 *   () => openSqliteStore(`${dir}/bad.db`, { clock: { now: () => 0 }, ids: () => crypto.randomUUID() }),
 *   { name: "StoreOpenError", message: "Cannot open the session store: not a SQLite database" },
 * );
 * await Deno.remove(dir, { recursive: true });
 * ```
 */
export class StoreOpenError extends Error {
  /** Why, in words (e.g. `not a SQLite database`), when known. */
  readonly reason: string | undefined;

  /**
   * Builds the error.
   *
   * @param options The underlying failure, kept as `cause`, and the
   * reason named in the message.
   */
  constructor(options?: { cause?: unknown; reason?: string }) {
    super(
      options?.reason === undefined
        ? "Cannot open the session store"
        : `Cannot open the session store: ${options.reason}`,
      options?.cause === undefined ? undefined : { cause: options.cause },
    );
    this.name = "StoreOpenError";
    this.reason = options?.reason;
  }
}
