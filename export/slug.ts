/**
 * The deterministic workflow id of an export.
 *
 * @module
 */

const KEBAB = /^[a-z0-9]+(-[a-z0-9]+)*$/;
const MAX_ID = 128;
const MAX_KEBAB_SESSION_ID = 111;
const HEX_CODE_UNITS = 24;

/**
 * Derives the workflow id of an exported session.
 *
 * From the title: Unicode NFKD, every combining mark (`\p{M}`) deleted,
 * locale-independent lower case, then `ı` → `i` and `ß` → `ss`; every
 * maximal run of characters outside `[a-z0-9]` is one separator, leading
 * and trailing separators are dropped and the pieces joined with `-`;
 * longer than 128 characters ⇒ cut to 128 and any trailing `-` stripped.
 * When that leaves nothing (title absent, blank or without ASCII letters
 * and digits), the session id decides: a kebab id of at most 111
 * characters gives `exported-session-<id>`, any other id gives
 * `exported-session-id-` followed by its first 24 UTF-16 code units as
 * 4-digit lowercase hex.
 *
 * Ids are bounded (≤ 128 characters, kebab-case) but not unique.
 *
 * @param title The session title, if any.
 * @param sessionId The session id (used only when the title gives nothing).
 * @returns A kebab-case workflow id.
 * @throws {TypeError} When the fallback is needed and `sessionId` is empty.
 */
export function workflowIdFromTitle(
  title: string | undefined,
  sessionId: string,
): string {
  const fromTitle = title === undefined ? "" : slugify(title);
  if (fromTitle !== "") return fromTitle;
  if (sessionId === "") {
    throw new TypeError(
      "Cannot derive a workflow id: the title is empty and so is the session id",
    );
  }
  if (KEBAB.test(sessionId) && sessionId.length <= MAX_KEBAB_SESSION_ID) {
    return `exported-session-${sessionId}`;
  }
  let hex = "";
  const head = sessionId.slice(0, HEX_CODE_UNITS);
  for (let i = 0; i < head.length; i++) {
    hex += head.charCodeAt(i).toString(16).padStart(4, "0");
  }
  return `exported-session-id-${hex}`;
}

function slugify(title: string): string {
  const folded = title
    .normalize("NFKD")
    .replace(/\p{M}/gu, "")
    .toLowerCase()
    .replace(/ı/g, "i")
    .replace(/ß/g, "ss");
  const joined = folded
    .split(/[^a-z0-9]+/)
    .filter((piece) => piece !== "")
    .join("-");
  if (joined.length <= MAX_ID) return joined;
  return joined.slice(0, MAX_ID).replace(/-+$/, "");
}
