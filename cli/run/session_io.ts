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
import { resolveColor } from "../io/color.ts";
import { createMarkdownRenderer } from "../chat/render/markdown.ts";
import { createStatusLine, intervalTicker } from "../chat/status.ts";

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
  const terminal = options.terminal === true
    ? terminalParts(ctx)
    : undefined;
  return createPlainPrinter(ctx.io, {
    color: ctx.color,
    quiet: ctx.globals.quiet,
    verbose: ctx.globals.verbose,
    primaryModel: options.primaryModel,
    possibleOverflowMessage: POSSIBLE_OVERFLOW_MESSAGE,
    hints: options.hints,
    turnSummary: options.turnSummary === true,
    ...(options.memory === undefined ? {} : { memory: options.memory }),
    ...(terminal === undefined ? {} : { terminal }),
  });
}

/**
 * The terminal chat's parts, when stdout is a terminal of known width:
 * the markdown renderer (coloured when stdout may be), and the status
 * line when stderr is a terminal too.
 */
function terminalParts(ctx: CommandEnv): TerminalParts | undefined {
  const { io } = ctx;
  const columns = io.columns;
  if (!io.stdoutIsTerminal || columns === undefined) return undefined;
  const env = (n: string): string | undefined => io.env(n);
  const now = (): number => Date.now();
  return {
    markdown: createMarkdownRenderer({
      columns,
      color: resolveColor(ctx.globals.color, { env, isTerminal: true }),
    }),
    now,
    ...(io.stderrIsTerminal === true
      ? {
        status: createStatusLine({
          write: (t) => io.stderr.write(t),
          now,
          every: intervalTicker,
          columns,
          color: ctx.color,
        }),
      }
      : {}),
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
