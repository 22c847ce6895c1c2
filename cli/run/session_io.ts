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
 *
 * @example JSON mode
 * ```ts
 * import { printerFor } from "./session_io.ts";
 * import { createBufferedIo } from "../io/io.ts";
 * import assert from "node:assert/strict";
 * const b = createBufferedIo();
 * const p = printerFor({ io: b.io, globals: { json: true, verbose: false, quiet: false }, color: false, cwd: "/" }, { primaryModel: "m", hints: true });
 * p.print({ type: "session:turn_started", sessionId: "s", timestamp: "2026-01-01T00:00:00.000Z", sequenceNumber: 1 });
 * assert.equal(JSON.parse(b.stdoutText()).type, "session:turn_started");
 * ```
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
 *
 * @example Quiet drops them
 * ```ts
 * import { writeNotices } from "./session_io.ts";
 * import { createBufferedIo } from "../io/io.ts";
 * import assert from "node:assert/strict";
 * const b = createBufferedIo();
 * writeNotices({ io: b.io, globals: { json: false, verbose: false, quiet: true }, color: false, cwd: "/" }, ["x"]);
 * assert.equal(b.stderrText(), "");
 * ```
 */
export function writeNotices(
  ctx: CommandEnv,
  notices: readonly string[],
): void {
  if (ctx.globals.quiet) return;
  for (const n of notices) ctx.io.stderr.write(`notice: ${n}\n`);
}
