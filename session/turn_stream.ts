/**
 * The stream step of the turn core: one request through the chain, its
 * chunks forwarded as `agent:token` / `agent:reasoning` and collected, and
 * the response it ended with (or how the run ends).
 *
 * @module
 */
import { toSessionError } from "../llm/errors.ts";
import type { LlmMessage, LlmRequest } from "../llm/provider.ts";
import type { TurnStopReason } from "../schema/event.ts";
import { ResponseCollector } from "./tool_calls.ts";
import type { TurnContext } from "./turn_context.ts";
import { overflowError, sessionError } from "./turn_errors.ts";
import type { TurnCoreResult } from "./turn_result.ts";
import type { TurnRun } from "./turn_run.ts";
import { planWindow } from "./window/measure.ts";

/**
 * What one streamed request ended with: a response, or the run's end.
 */
export type StreamStep =
  | {
    kind: "response";
    /** The collected text, reasoning and tool calls. */
    collected: ResponseCollector;
    /** Why the model stopped. */
    stopReason: Exclude<TurnStopReason, "aborted" | "error">;
    /** The attempt that answered (stamped on tool events). */
    attemptNumber: number;
  }
  | { kind: "end"; result: TurnCoreResult };

/**
 * Streams one round's request and collects the response.
 *
 * @param turn The turn's context.
 * @param step The run's state, the request's messages and the round index.
 * @returns The response, or how the run ends.
 */
export async function streamRound(
  turn: TurnContext,
  step: { run: TurnRun; messages: LlmMessage[]; round: number },
): Promise<StreamStep> {
  const { run, round } = step;
  const request: LlmRequest = {
    ...turn.base,
    messages: step.messages,
    signal: turn.signal,
  };
  if (turn.tools.length > 0) request.tools = turn.tools;
  const collected = new ResponseCollector();
  let attemptNumber = 0;
  let stopReason: Exclude<TurnStopReason, "aborted" | "error"> | undefined;
  let forwarded = false;
  const end = (result: TurnCoreResult): StreamStep => ({ kind: "end", result });
  for await (const ev of turn.chain.stream(request, turn.signal)) {
    const halt = run.stopped();
    if (halt !== undefined) return end(halt);
    switch (ev.type) {
      case "attempt_start":
        run.engaged = true;
        turn.tally.engage();
        run.attemptModel = ev.model;
        break;
      case "chunk":
        forwarded = true;
        attemptNumber = ev.attemptNumber;
        collected.add(ev.chunk);
        if (ev.chunk.type === "text_delta" && ev.chunk.text !== "") {
          turn.emit({
            type: "agent:token",
            nodeId: turn.nodeId,
            token: ev.chunk.text,
            model: ev.model,
          });
        } else if (
          ev.chunk.type === "reasoning_delta" && ev.chunk.text !== ""
        ) {
          turn.emit({
            type: "agent:reasoning",
            nodeId: turn.nodeId,
            text: ev.chunk.text,
            model: ev.model,
          });
        }
        break;
      case "done":
        attemptNumber = ev.attemptNumber;
        run.model = ev.model;
        run.usage.input += ev.usage.inputTokens;
        run.usage.output += ev.usage.outputTokens;
        if (ev.contextExceeded === true) {
          const window = planWindow(turn.view.plan, ev.model);
          return end(
            run.fail(overflowError(ev.model, window, run.toolsRan)),
          );
        }
        stopReason = ev.stopReason === "error" ? "stop" : ev.stopReason;
        break;
      case "failed": {
        run.engaged ||= ev.engaged;
        if (ev.engaged) turn.tally.engage();
        const halt2 = run.stopped();
        if (halt2 !== undefined) return end(halt2);
        if (ev.refusal !== undefined) return end(run.fail(ev.refusal));
        if (ev.error === undefined || ev.error.kind === "cancelled") {
          return end(run.fail(sessionError("internal")));
        }
        if (ev.error.kind === "context_overflow") {
          const model = run.attemptModel ?? run.model;
          const window = planWindow(turn.view.plan, model);
          const r = run.fail(overflowError(model, window, run.toolsRan));
          const fresh = round === 0 && !forwarded && !run.toolsRan;
          return end(
            fresh && r.kind === "error"
              ? { ...r, overflowRecoverable: true }
              : r,
          );
        }
        return end(run.fail(toSessionError(ev.error)));
      }
      default: {
        const never: never = ev;
        return never;
      }
    }
  }
  const halt = run.stopped();
  if (halt !== undefined) return end(halt);
  if (stopReason === undefined) return end(run.fail(sessionError("internal")));
  return { kind: "response", collected, stopReason, attemptNumber };
}
