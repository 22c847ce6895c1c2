/**
 * The tool-round step of the turn core: each call of a response
 * dispatched through the registry in order, announced, recorded in the
 * tally, and turned into the tool messages of the next request.
 *
 * @module
 */
import type { LlmMessage } from "../llm/provider.ts";
import type { ToolHistoryEntry } from "../schema/event.ts";
import type { ToolOutcome } from "../tools/registry.ts";
import type { IssuedCall } from "./tool_calls.ts";
import type { TurnContext } from "./turn_context.ts";
import { sessionError } from "./turn_errors.ts";
import type { TurnCoreResult } from "./turn_result.ts";
import { frozen, type TurnRun } from "./turn_run.ts";

/** Corrections a turn allows before it ends `tool_failed`. */
export const MAX_CORRECTIONS = 3;

/**
 * What a tool round ended with: the tool messages of the next request, or
 * the run's end.
 */
export type ToolRoundStep =
  | { kind: "next"; toolMessages: LlmMessage[] }
  | { kind: "end"; result: TurnCoreResult };

function utf8Bytes(s: string): number {
  return new TextEncoder().encode(s).byteLength;
}

function unknownToolOutcome(call: IssuedCall): ToolOutcome {
  return {
    kind: "feedback",
    toolId: "unknown_tool",
    displayInput: {},
    summary: "unknown tool",
    modelResult: `Unknown tool "${
      call.name.slice(0, 128)
    }": no such tool is available`,
    outcome: "error",
    code: "tool_failed",
  };
}

/**
 * Dispatches one response's calls, in order.
 *
 * @param turn The turn's context.
 * @param step The run's state, the calls, and the attempt that issued them.
 * @returns The next request's tool messages, or how the run ends.
 */
export async function runToolRound(
  turn: TurnContext,
  step: { run: TurnRun; calls: IssuedCall[]; attemptNumber: number },
): Promise<ToolRoundStep> {
  const { run, attemptNumber } = step;
  const end = (result: TurnCoreResult): ToolRoundStep => ({
    kind: "end",
    result,
  });
  const toolMessages: LlmMessage[] = [];
  const entries: ToolHistoryEntry[] = [];
  let fedBack = false;
  for (const call of step.calls) {
    let id: string;
    try {
      id = run.nextToolCallId();
    } catch {
      return end(run.fail(sessionError(
        "internal",
        "session effect identity could not be reserved",
      )));
    }
    const outcome = turn.registry === undefined
      ? unknownToolOutcome(call)
      : await turn.registry.dispatch(
        { id, name: call.name, args: call.args },
        {
          signal: turn.signal,
          granted: turn.granted,
          ...(turn.policy === undefined ? {} : { policy: turn.policy }),
          interactive: turn.interactive,
          emitApproval: (req) =>
            turn.emit({
              type: "agent:approval_requested",
              nodeId: turn.nodeId,
              toolId: req.toolId,
              action: req.action,
              preview: req.preview,
              attemptNumber,
            }),
          // Admission right before the effect.
          admit: () =>
            turn.deps.preEgress?.({ kind: "tool", toolId: call.name }) ??
              { allow: true },
        },
      );
    run.toolsRan = true;
    if (turn.isCancelled()) return end({ kind: "cancelled" });
    turn.emit({
      type: "agent:tool_call",
      nodeId: turn.nodeId,
      model: run.model ?? "",
      toolId: outcome.toolId,
      toolInput: outcome.displayInput,
      toolCallId: id,
      attemptNumber,
    });
    turn.emit({
      type: "agent:tool_result",
      nodeId: turn.nodeId,
      toolId: outcome.toolId,
      success: outcome.kind === "ok",
      outputSummary: outcome.summary,
      toolCallId: id,
      attemptNumber,
    });
    const halt = run.stopped();
    if (halt !== undefined) return end(halt);
    if (outcome.kind === "fatal") {
      if (outcome.outcome === "cancelled") {
        return end(run.stopped() ?? run.fail(sessionError("cancelled")));
      }
      return end(run.fail(outcome.error));
    }
    if (outcome.kind === "feedback") fedBack = true;
    entries.push({
      call: {
        type: "tool_call",
        id,
        name: outcome.toolId,
        argsBytes: utf8Bytes(call.argsJson),
      },
      result: {
        type: "tool_result",
        toolCallId: id,
        resultBytes: utf8Bytes(outcome.modelResult),
        outcome: outcome.kind === "ok" ? "ok" : outcome.outcome,
      },
    });
    toolMessages.push(frozen({
      role: "tool",
      content: [{
        type: "tool_result",
        toolCallId: call.providerId,
        result: outcome.modelResult,
        ...(outcome.kind === "ok" ? {} : { isError: true }),
      }],
    }));
  }
  run.history.push(...entries);
  turn.tally.rounds.push({
    calls: entries.map((h) => h.call),
    results: entries.map((h) => h.result),
  });
  if (fedBack && ++run.corrections > MAX_CORRECTIONS) {
    return end(run.fail(sessionError(
      "tool_failed",
      `Tool calls could not be corrected within ${MAX_CORRECTIONS} rounds`,
    )));
  }
  return { kind: "next", toolMessages };
}
