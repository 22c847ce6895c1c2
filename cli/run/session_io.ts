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
  },
): EventPrinter {
  if (ctx.globals.json) return createNdjsonPrinter(ctx.io);
  return createPlainPrinter(ctx.io, {
    color: ctx.color,
    quiet: ctx.globals.quiet,
    verbose: ctx.globals.verbose,
    primaryModel: options.primaryModel,
    possibleOverflowMessage: POSSIBLE_OVERFLOW_MESSAGE,
    hints: options.hints,
    turnSummary: options.turnSummary === true,
    ...(options.memory === undefined ? {} : { memory: options.memory }),
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
