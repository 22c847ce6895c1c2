/**
 * The chat's persistent input history: one file per user in the
 * Relavium home, one JSON string per line (so a multi-line message is
 * one entry), created with mode 0600 and kept to the newest
 * {@linkcode HISTORY_LIMIT} entries. A message equal to the newest entry
 * is not stored again. Appends are one write each, so two chats at once
 * interleave whole entries. A file that cannot be read or written never
 * stops the chat: the history then lives in memory for this chat only.
 *
 * @module
 */
import { dirname } from "../../../schema/paths.ts";

/** Entries kept (older ones are dropped when the file is loaded). */
export const HISTORY_LIMIT = 1000;

/** The history of one chat, backed by a file. */
export interface InputHistory {
  /** Entries, oldest first. */
  readonly entries: readonly string[];
  /** Adds a submitted message (skipped when empty or a repeat). */
  add(entry: string): Promise<void>;
}

function parseLines(text: string): string[] {
  const out: string[] = [];
  for (const line of text.split("\n")) {
    if (line === "") continue;
    try {
      const v: unknown = JSON.parse(line);
      if (typeof v === "string") out.push(v);
    } catch {
      // A damaged line is skipped; the rest of the history stays usable.
    }
  }
  return out;
}

function serialise(entries: readonly string[]): string {
  return entries.map((e) => `${JSON.stringify(e)}\n`).join("");
}

/**
 * Loads (or starts) the history at `path`; without a path it lives in
 * memory only.
 *
 * @param path The history file (`undefined` ⇒ no home folder).
 * @returns The history.
 */
export async function openInputHistory(
  path: string | undefined,
): Promise<InputHistory> {
  let entries: string[] = [];
  let writable = path !== undefined;
  if (path !== undefined) {
    try {
      entries = parseLines(await Deno.readTextFile(path));
      if (entries.length > HISTORY_LIMIT) {
        entries = entries.slice(-HISTORY_LIMIT);
        await Deno.writeTextFile(path, serialise(entries), { mode: 0o600 });
      }
      await Deno.chmod(path, 0o600);
    } catch (e) {
      if (!(e instanceof Deno.errors.NotFound)) writable = false;
    }
  }
  return {
    get entries(): readonly string[] {
      return entries;
    },
    async add(entry: string): Promise<void> {
      if (entry.trim() === "" || entries.at(-1) === entry) return;
      entries.push(entry);
      if (entries.length > HISTORY_LIMIT) entries.shift();
      if (!writable || path === undefined) return;
      try {
        await Deno.mkdir(dirname(path), { recursive: true, mode: 0o700 });
        await Deno.writeTextFile(path, serialise([entry]), {
          append: true,
          mode: 0o600,
        });
      } catch {
        writable = false;
      }
    },
  };
}
