/**
 * Reading a session's rows from `history.db` page by page, decoded and
 * validated.
 *
 * @module
 */
import type { SessionMessage } from "../schema/message.ts";
import {
  decodeLeanRow,
  type DecodeMemo,
  decodeMessageArray,
  decodeMessageRow,
  type MessageRow,
} from "./message_codec.ts";
import { SessionMessageBoundaryError } from "./errors.ts";
import {
  MESSAGE_COLUMN_ORDER,
  MESSAGE_PAGE_ROWS,
  type Statements,
} from "./sqlite_statements.ts";

const FULL_SEQUENCE = MESSAGE_COLUMN_ORDER.indexOf("sequence_number");
const LEAN_SEQUENCE = 1;

/**
 * Names the damaged row on a boundary error (its `sequence_number`, when
 * the raw row has a usable one), so a reader can say which row is bad.
 */
function atRow(error: unknown, row: unknown, lean: boolean): unknown {
  if (
    !(error instanceof SessionMessageBoundaryError) ||
    error.sequenceNumber !== undefined
  ) return error;
  const seq = Array.isArray(row)
    ? row[lean ? LEAN_SEQUENCE : FULL_SEQUENCE]
    : (row as Record<string, unknown> | null)?.["sequence_number"];
  const n = typeof seq === "bigint" ? Number(seq) : seq;
  if (typeof n === "number" && Number.isSafeInteger(n)) {
    error.sequenceNumber = n;
  }
  return error;
}

/**
 * Decodes a message row as a statement returns it: an array, or an object.
 *
 * @param row The raw row.
 * @param memo The timestamp memo of this read.
 * @returns The validated message.
 */
export function decodeRead(row: unknown, memo: DecodeMemo): SessionMessage {
  return Array.isArray(row)
    ? decodeMessageArray(row, memo)
    : decodeMessageRow(row as MessageRow, memo);
}

/**
 * Decodes a lean page into `out` when every row is regular (its `role` not
 * NULL); else decodes nothing. The loops live outside the store class so a
 * deoptimization of the paging code never sends them back to the
 * interpreter.
 */
function decodeLeanPage(
  page: readonly unknown[],
  sessionId: string,
  memo: DecodeMemo,
  out: SessionMessage[],
): boolean {
  for (let i = 0; i < page.length; i++) {
    const row = page[i];
    if (!Array.isArray(row) || typeof row[2] !== "string") return false;
  }
  let i = 0;
  try {
    for (; i < page.length; i++) {
      out.push(decodeLeanRow(page[i] as unknown[], sessionId, memo));
    }
  } catch (e) {
    throw atRow(e, page[i], true);
  }
  return true;
}

/**
 * Decodes a page read with every column into `out`.
 *
 * @param page The rows.
 * @param memo The decode memo of the read.
 * @param out Where the messages go.
 * @throws {SessionMessageBoundaryError} Naming the damaged row's sequence.
 */
export function decodeFullPage(
  page: readonly unknown[],
  memo: DecodeMemo,
  out: SessionMessage[],
): void {
  let i = 0;
  try {
    for (; i < page.length; i++) out.push(decodeRead(page[i], memo));
  } catch (e) {
    throw atRow(e, page[i], false);
  }
}

/**
 * Every row of a session in sequence order, decoded and validated. Pages
 * are read lean (six values a row) while their rows are regular; a page
 * with any other row is read again with every column and decoded as
 * before, and so are the pages after it. The row count is read first, so
 * paging stops at the last row instead of asking for an empty page.
 *
 * @param sql The store's statements.
 * @param sessionId The session.
 * @param recordId The session row's id (the lean rows' `sessionId`).
 * @returns The rows.
 */
export function readMessages(
  sql: Statements,
  sessionId: string,
  recordId: string,
): SessionMessage[] {
  const memo: DecodeMemo = { epoch: Number.NaN, iso: "" };
  const count = Number(sql.messageCount.get(sessionId)?.["n"]);
  const messages: SessionMessage[] = [];
  let lean = true;
  let after: number | undefined;
  while (messages.length < count) {
    let page: unknown[] | undefined;
    if (lean) {
      page = after === undefined
        ? sql.messagesLeanFirstPage.all(sessionId, recordId)
        : sql.messagesLeanNextPage.all(sessionId, recordId, after);
      lean = decodeLeanPage(page, recordId, memo, messages);
    }
    if (!lean) {
      page = after === undefined
        ? sql.messagesFirstPage.all(sessionId)
        : sql.messagesNextPage.all(sessionId, after);
      decodeFullPage(page, memo, messages);
    }
    const last = messages[messages.length - 1];
    if (
      page === undefined || page.length < MESSAGE_PAGE_ROWS ||
      last === undefined
    ) break;
    after = last.sequenceNumber;
  }
  // Paging by sequence number relies on (session_id, sequence_number)
  // being unique (idx_session_messages_seq); should a file ever hold
  // duplicates, read it in one query as before.
  if (count === messages.length) return messages;
  const all = sql.messagesOf.all(sessionId);
  const out: SessionMessage[] = [];
  decodeFullPage(all, memo, out);
  return out;
}
