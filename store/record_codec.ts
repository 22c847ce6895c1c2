/**
 * Mapping between `agent_sessions` rows and {@linkcode AgentSessionRecord}s:
 * the context is parsed and re-validated by its schema, the other columns
 * decoded by `record_fields.ts`. Corruption throws a fixed-message
 * {@linkcode SessionRecordError}.
 *
 * @module
 */
import { checkNewSession, isSessionContext } from "./record_check.ts";
import { SessionRecordError } from "./errors.ts";
import {
  decodeSessionHeader,
  parseJson,
  type SessionRow,
  type SessionRowCodec,
} from "./record_fields.ts";
import type { AgentSessionRecord } from "./store.ts";

export { isoFromEpoch, type SessionRow } from "./record_fields.ts";

/**
 * Decodes and re-validates a session row.
 *
 * @param row The raw row.
 * @returns The record.
 * @throws {SessionRecordError} `malformed_json` or `invalid_record`.
 */
export function decodeSessionRow(row: SessionRow): AgentSessionRecord {
  const context = parseJson(row.context_json, "agent_sessions.context_json");
  if (!isSessionContext(context)) {
    throw new SessionRecordError(
      "invalid_record",
      "agent_sessions.context_json",
    );
  }
  // zod's record leaves an own `__proto__` key out of its output; so does
  // the decoded context (a stored `{"__proto__": …}` never reaches a prompt).
  const variables = context.variables;
  if (variables !== undefined && Object.hasOwn(variables, "__proto__")) {
    context.variables = Object.fromEntries(
      Object.entries(variables).filter(([key]) => key !== "__proto__"),
    );
  }
  // The context first, then the other columns: a row damaged in both
  // names its context.
  const { id, agentSlug, ...rest } = decodeSessionHeader(row);
  return { id, agentSlug, context, ...rest };
}

/** Whole rows, contexts checked by their schema: the store's own codec. */
export const checkedRows: SessionRowCodec = {
  decode: decodeSessionRow,
  checkNew: checkNewSession,
};
