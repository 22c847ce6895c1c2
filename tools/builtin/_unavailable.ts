/**
 * The run result of a built-in tool whose effect this host cannot
 * perform (a missing capability or Deno permission).
 *
 * @module
 */
import type { ToolRunResult } from "../tool.ts";

/** A failed run: the effect is unavailable here, `message` says what is missing. */
export function unavailable(message: string): ToolRunResult {
  return { ok: false, error: { kind: "unavailable", message } };
}
