/**
 * One summariser pass: its request streamed through the summariser's
 * chain, the text collected (a new attempt starts it afresh), and how the
 * pass ended: a summary with its usage, a refusal, a failure, or aborted.
 *
 * @module
 */
import type { createChain } from "../../llm/chain.ts";
import type { LlmRequest } from "../../llm/provider.ts";
import type { SessionError } from "../../schema/event.ts";
import { toSessionError } from "../../llm/errors.ts";
import { overflowError, sessionError } from "../turn_errors.ts";

/** How one summariser pass ended. */
export type SummaryPass =
  | { kind: "text"; text: string; usage: { input: number; output: number } }
  | { kind: "refused"; error: SessionError }
  | { kind: "failed"; error: SessionError }
  | { kind: "aborted" };

/**
 * Streams one summariser request and collects its text.
 *
 * @param chain The summariser's chain.
 * @param request The pass's request.
 * @param signal Aborts the pass.
 * @returns How the pass ended.
 */
export async function runSummaryPass(
  chain: ReturnType<typeof createChain>,
  request: LlmRequest,
  signal: AbortSignal,
): Promise<SummaryPass> {
  let text = "";
  for await (const ev of chain.stream(request, signal)) {
    if (signal.aborted) return { kind: "aborted" };
    if (ev.type === "attempt_start") text = "";
    else if (ev.type === "chunk" && ev.chunk.type === "text_delta") {
      text += ev.chunk.text;
    } else if (ev.type === "done") {
      if (ev.contextExceeded === true || ev.stopReason === "content_filter") {
        return {
          kind: "failed",
          error: sessionError(
            "internal",
            "The summariser did not return a summary",
          ),
        };
      }
      return {
        kind: "text",
        text,
        usage: { input: ev.usage.inputTokens, output: ev.usage.outputTokens },
      };
    } else if (ev.type === "failed") {
      if (signal.aborted) return { kind: "aborted" };
      if (ev.refusal !== undefined) {
        return { kind: "refused", error: ev.refusal };
      }
      if (ev.error === undefined || ev.error.kind === "cancelled") {
        return { kind: "failed", error: sessionError("internal") };
      }
      return {
        kind: "failed",
        error: ev.error.kind === "context_overflow"
          ? overflowError(undefined, undefined, false)
          : toSessionError(ev.error),
      };
    }
  }
  return signal.aborted
    ? { kind: "aborted" }
    : { kind: "failed", error: sessionError("internal") };
}
