/**
 * The string patterns the message schema and its hand check share.
 *
 * @module
 */

/**
 * Engine tool-call id: `session-tool:<turnKey>:<slot>` (≤ 46 chars).
 */
export const ENGINE_TOOL_CALL_ID: RegExp =
  /^session-tool:(?:[1-9][0-9]*):(?:0|[1-9][0-9]*)$/;

/**
 * Durable tool name: a registry id or `unknown_tool`.
 */
export const TOOL_NAME: RegExp = /^[a-zA-Z0-9_-]{1,128}$/;

/**
 * A content-addressed media handle.
 */
export const MEDIA_HANDLE: RegExp = /^media:\/\/sha256-[0-9a-f]{64}$/;

/**
 * Accepted media types.
 */
export const MIME: RegExp =
  /^(?:(?:image|audio|video)\/[A-Za-z0-9][A-Za-z0-9!#$&^_.+-]*|application\/pdf)$/;

/**
 * zod 4's `z.iso.datetime({ offset: true })` pattern (RFC 3339 with
 * seconds, any fraction, `Z` or `±hh:mm`); a test compares it with zod's.
 */
export const ISO_DATETIME: RegExp = new RegExp(
  "^(?:(?:\\d\\d[2468][048]|\\d\\d[13579][26]|\\d\\d0[48]|[02468][048]00|" +
    "[13579][26]00)-02-29|\\d{4}-(?:(?:0[13578]|1[02])-(?:0[1-9]|[12]\\d|" +
    "3[01])|(?:0[469]|11)-(?:0[1-9]|[12]\\d|30)|(?:02)-(?:0[1-9]|1\\d|" +
    "2[0-8])))T(?:(?:[01]\\d|2[0-3]):[0-5]\\d:[0-5]\\d(?:\\.\\d+)?" +
    "(?:Z|([+-](?:[01]\\d|2[0-3]):[0-5]\\d)))$",
);
