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
} from "../io/output.ts";

/**
 * The printer for the context's output mode: NDJSON under `--json`, else
 * plain. The interactive chat's terminal parts (status line, tool lines,
 * live Markdown) load only for it: a one-shot never evaluates them.
 *
 * @param ctx The command context.
 * @param options The primary model (for `via`), whether to print hints
 * and per-turn summaries, and the agent's memory policy (for hints).
 * @returns The printer.
 */
export async function printerFor(
  ctx: CommandEnv,
  options: {
    primaryModel: string;
    hints: boolean;
    turnSummary?: boolean;
    memory?: "none" | "window" | "summary" | undefined;
    /** The interactive terminal chat (status, tool lines, rendering). */
    terminal?: boolean;
  },
): Promise<EventPrinter> {
  if (ctx.globals.json) return createNdjsonPrinter(ctx.io);
  const terminal = options.terminal === true
    ? (await import("./terminal_parts.ts")).terminalParts(ctx)
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
    ...(ctx.io.invocation === undefined
      ? {}
      : { invocation: ctx.io.invocation }),
    ...(terminal === undefined ? {} : { terminal }),
  });
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
