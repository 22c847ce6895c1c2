/**
 * Where an interactive chat reads its lines: the terminal line editor
 * when stdin is a terminal the io controls (loaded only then), else plain
 * stdin lines (pipes, `--json`, CI and in-process tests keep the
 * line-by-line contract byte for byte).
 *
 * @module
 */
import { chatHistoryPath, resolveHome } from "../config/home.ts";
import type { CliIo } from "../io/io.ts";
import { createLineReader, type LineReader } from "../io/stdin.ts";

/**
 * Opens the chat's reader.
 *
 * @param io The CLI io.
 * @param options Whether the chat is interactive, and its workspace.
 * @returns The reader (a `TerminalReader` on a terminal).
 */
export async function openChatReader(
  io: CliIo,
  options: { interactive: boolean; workspace: string },
): Promise<LineReader> {
  const terminal = io.terminal;
  if (!options.interactive || terminal === undefined) {
    return createLineReader(io.stdin);
  }
  const home = resolveHome((n) => io.env(n));
  const historyFile = home.ok ? chatHistoryPath(home.value) : undefined;
  const { openTerminalEditor } = await import("./editor/open.ts");
  return await openTerminalEditor(io, terminal, {
    workspace: options.workspace,
    ...(historyFile === undefined ? {} : { historyFile }),
  });
}
