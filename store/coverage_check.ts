/**
 * The usage-coverage journal's shapes as both stores take them, and the
 * checks a write applies before touching anything.
 *
 * @module
 */
import { SessionRecordError } from "./errors.ts";
import type { SessionStore } from "./store.ts";

/** What {@linkcode SessionStore.beginInvocation} journals. */
export type InvocationStart = Parameters<
  NonNullable<SessionStore["beginInvocation"]>
>[1];

/** How {@linkcode SessionStore.settleInvocation} resolves it. */
export type InvocationSettlement = Parameters<
  NonNullable<SessionStore["settleInvocation"]>
>[1];

/** What {@linkcode SessionStore.coverage} answers. */
export type UsageCoverage = ReturnType<NonNullable<SessionStore["coverage"]>>;

/** One pending invocation of a {@linkcode UsageCoverage}. */
export type PendingInvocation = UsageCoverage["pending"][number];

const PURPOSES: ReadonlySet<unknown> = new Set(["turn", "summary"]);
const COVERAGES: ReadonlySet<unknown> = new Set([
  "priced",
  "unpriced",
  "no_usage",
  "not_sent",
]);

function isCount(n: unknown): n is number {
  return typeof n === "number" && Number.isSafeInteger(n) && n >= 0;
}

function isText(v: unknown): v is string {
  return typeof v === "string" && v !== "";
}

/**
 * Checks an invocation to journal.
 *
 * @param invocation The candidate.
 * @throws {RangeError} On an empty provider or model, or an unknown
 * purpose.
 */
export function checkInvocationStart(invocation: InvocationStart): void {
  const n = invocation.turnNumber;
  if (
    !isText(invocation.provider) || !isText(invocation.model) ||
    !PURPOSES.has(invocation.purpose) ||
    (n !== undefined && (!isCount(n) || n < 1))
  ) {
    throw new RangeError("Cannot journal the invocation: invalid fields");
  }
}

/**
 * Checks a settlement.
 *
 * @param settlement The candidate.
 * @throws {RangeError} On an empty id, an unknown coverage, or counts that
 * are not non-negative safe integers.
 */
export function checkSettlement(settlement: InvocationSettlement): void {
  if (
    !isText(settlement.id) || !COVERAGES.has(settlement.coverage) ||
    !isCount(settlement.inputTokens) || !isCount(settlement.outputTokens) ||
    !isCount(settlement.costMicrocents)
  ) {
    throw new RangeError("Cannot settle the invocation: invalid fields");
  }
}

/**
 * Decodes one stored pending invocation, naming the column it finds
 * invalid.
 *
 * @param row The raw `relavium_open_invocations` row (`id`, `purpose`,
 * `provider`, `model`, `started_at`).
 * @returns The pending invocation.
 * @throws {SessionRecordError} `invalid_record` naming
 * `relavium_open_invocations.<column>`.
 */
export function decodePendingRow(
  row: Record<string, unknown>,
): PendingInvocation {
  const bad = (column: string): never => {
    throw new SessionRecordError(
      "invalid_record",
      `relavium_open_invocations.${column}`,
    );
  };
  const id = row["id"];
  const purpose = row["purpose"];
  const provider = row["provider"];
  const model = row["model"];
  const started = row["started_at"];
  if (!isText(id)) bad("id");
  if (purpose !== "turn" && purpose !== "summary") bad("purpose");
  if (!isText(provider)) bad("provider");
  if (!isText(model)) bad("model");
  if (!isCount(started) || Number.isNaN(new Date(started).getTime())) {
    bad("started_at");
  }
  return {
    id: id as string,
    purpose: purpose as "turn" | "summary",
    provider: provider as string,
    model: model as string,
    startedAt: new Date(started as number).toISOString(),
  };
}

/**
 * Reads a stored count (a sum of money), naming the column when invalid.
 *
 * @param value The stored value.
 * @param column The `table.column` it came from.
 * @returns The count.
 * @throws {SessionRecordError} `invalid_record` naming the column.
 */
export function storedCount(value: unknown, column: string): number {
  if (!isCount(value)) throw new SessionRecordError("invalid_record", column);
  return value;
}
