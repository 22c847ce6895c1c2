/**
 * Glue between a live session and the terminal: the printer for the
 * output mode and the notices line. The events reach the printer through
 * `pumpEvents` (host_options.ts).
 *
 * @module
 */
import { POSSIBLE_OVERFLOW_MESSAGE } from "../../llm/errors.ts";
import type { CommandEnv } from "../command_env.ts";
import {
  createNdjsonPrinter,
  createPlainPrinter,
  type EventPrinter,
  type TerminalParts,
} from "../io/output.ts";
import { createStatusLine, intervalTicker } from "../chat/status.ts";
import { TOOL_LINES } from "../chat/tool_line.ts";
import { createLiveMarkdown } from "../io/live_markdown.ts";

/**
 * The printer for the context's output mode: NDJSON under `--json`, else
 * plain.
 *
 * @param ctx The command context.
 * @param options The primary model (for `via`), whether to print hints
 * and per-turn summaries, and the agent's memory policy (for hints).
 * @returns The printer.
 */
export function printerFor(
  ctx: CommandEnv,
  options: {
    primaryModel: string;
    hints: boolean;
    turnSummary?: boolean;
    memory?: "none" | "window" | "summary" | undefined;
    /** The interactive terminal chat (status, tool lines, rendering). */
    terminal?: boolean;
  },
): EventPrinter {
  if (ctx.globals.json) return createNdjsonPrinter(ctx.io);
  const terminal = options.terminal === true ? terminalParts(ctx) : undefined;
  return createPlainPrinter(ctx.io, {
    color: ctx.color,
    quiet: ctx.globals.quiet,
    verbose: ctx.globals.verbose,
    primaryModel: options.primaryModel,
    possibleOverflowMessage: POSSIBLE_OVERFLOW_MESSAGE,
    hints: options.hints,
    turnSummary: options.turnSummary === true,
    ...(options.memory === undefined ? {} : { memory: options.memory }),
    ...(ctx.io.invocation === undefined
      ? {}
      : { invocation: ctx.io.invocation }),
    ...(terminal === undefined ? {} : { terminal }),
  });
}

/**
 * The terminal chat's parts: tool lines always, the status line only
 * when stderr is a terminal (it redraws in place there).
 */
function terminalParts(ctx: CommandEnv): TerminalParts {
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

/**
 * Writes notices to stderr unless `-q`.
 *
 * @param ctx The command context.
 * @param notices One line each.
 */
export function writeNotices(
  ctx: CommandEnv,
  notices: readonly string[],
): void {
  if (ctx.globals.quiet) return;
  for (const n of notices) ctx.io.stderr.write(`notice: ${n}\n`);
}
