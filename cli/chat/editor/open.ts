/**
 * The terminal line editor as the chat wires it: the io's terminal, the
 * history file, `@` completion in the workspace. Loaded only by an
 * interactive chat on a terminal.
 *
 * @module
 */
import type { CliIo, TerminalControl } from "../../io/io.ts";
import { createPathCompleter } from "./complete.ts";
import { openInputHistory } from "./history.ts";
import type { TerminalReader } from "./reader_types.ts";
import { createTerminalReader } from "./terminal_reader.ts";

/**
 * Opens the editor.
 *
 * @param io The CLI io (stdin and stderr are the terminal).
 * @param terminal The terminal's controls.
 * @param options The workspace (`@` completion) and the history file.
 * @returns The editor.
 */
export async function openTerminalEditor(
  io: CliIo,
  terminal: TerminalControl,
  options: { workspace: string; historyFile?: string },
): Promise<TerminalReader> {
  return createTerminalReader({
    stdin: io.stdin,
    write: (t) => io.stderr.write(t),
    setMode: (m) => terminal.setMode(m),
    columns: () => terminal.columns(),
    ...(terminal.onResize === undefined
      ? {}
      : { onResize: (h: () => void) => terminal.onResize?.(h) ?? (() => {}) }),
    history: await openInputHistory(options.historyFile),
    complete: createPathCompleter(options.workspace),
  });
}
