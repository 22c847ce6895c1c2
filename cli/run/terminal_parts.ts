/**
 * The interactive chat's terminal parts: the status line, tool lines and
 * live Markdown. Loaded only by a terminal chat's printer, so a one-shot or
 * a piped run never evaluates them.
 *
 * @module
 */
import type { CommandEnv } from "../command_env.ts";
import type { TerminalParts } from "../io/output.ts";
import { createStatusLine, intervalTicker } from "../chat/status.ts";
import { TOOL_LINES } from "../chat/tool_line.ts";
import { createLiveMarkdown } from "../io/live_markdown.ts";

/**
 * The terminal chat's parts: tool lines always, the status line only
 * when stderr is a terminal (it redraws in place there), live Markdown only
 * when stdout is one.
 *
 * @param ctx The command context.
 * @returns The parts.
 */
export function terminalParts(ctx: CommandEnv): TerminalParts {
  const { io } = ctx;
  const now = io.now ?? ((): number => Date.now());
  const markdown = io.stdoutIsTerminal
    ? createLiveMarkdown({
      // Read as it streams: a resized terminal wraps at its new width.
      width: () => io.terminal?.columns() ?? 80,
      color: ctx.color,
    })
    : undefined;
  const parts = {
    now,
    lines: TOOL_LINES,
    ...(markdown === undefined ? {} : { markdown }),
  };
  if (io.stderrIsTerminal !== true) return parts;
  return {
    ...parts,
    status: createStatusLine({
      write: (t) => io.stderr.write(t),
      now,
      every: io.every ?? intervalTicker,
      ...(io.terminal === undefined
        ? {}
        : { columns: () => io.terminal?.columns() ?? 80 }),
      color: ctx.color,
    }),
  };
}
