/**
 * The shared turn core: stream a round through the
 * chain, dispatch its tool calls through the registry, repeat until a
 * response without tool calls; enforce the within-turn limits.
 *
 * @module
 */
import type { LlmMessage, LlmRequest } from "../llm/provider.ts";
import type {
  SessionError,
  ToolHistoryEntry,
  TurnStopReason,
} from "../schema/event.ts";
import type { ToolOutcome } from "../tools/registry.ts";
import { type IssuedCall, ResponseCollector } from "./tool_calls.ts";
import type { TurnContext } from "./turn_context.ts";
import type { TurnCoreResult } from "./turn_result.ts";
import { sessionError, sessionErrorFromLlm } from "./turn_errors.ts";

/** Within-turn limits. */
export const TURN_LIMITS: {
  readonly maxToolRounds: number;
  readonly maxCallsPerResponse: number;
  readonly maxCorrections: number;
} = { maxToolRounds: 16, maxCallsPerResponse: 16, maxCorrections: 3 };

/** Freezes a message, its part list and each part (one level each). */
function frozen(message: LlmMessage): LlmMessage {
  for (const part of message.content) Object.freeze(part);
  Object.freeze(message.content);
  return Object.freeze(message);
}

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
 * Runs one turn's rounds until the model answers without tool calls, a
 * limit is hit, or the turn fails, aborts or is cancelled.
 *
 * @param input The turn's context.
 * @returns The turn outcome (events already emitted, except the terminal).
 */
export async function runTurnCore(
  input: TurnContext,
): Promise<TurnCoreResult> {
  // Each request owns its array and it is never changed once sent: the
  // first request takes the (fresh) projection itself; a tool round copies
  // it and appends in one allocation (`concat`). The parts are shared and
  // never mutated (history messages and the turn's own are frozen), so
  // nothing copies a part.
  let messages: LlmMessage[] = input.projectedMessages();
  const tally = input.tally;
  const usage = { input: 0, output: 0 };
  const history: ToolHistoryEntry[] = [];
  let model: string | undefined;
  let engaged = false;
  let corrections = 0;
  let toolsRan = false;
  let attemptModel: string | undefined;

  function stopped(): TurnCoreResult | undefined {
    if (input.isCancelled()) return { kind: "cancelled" };
    if (input.signal.aborted) {
      return model === undefined
        ? { kind: "aborted", usage, engaged }
        : { kind: "aborted", usage, model, engaged };
    }
    return undefined;
  }
  function fail(error: SessionError): TurnCoreResult {
    return model === undefined
      ? { kind: "error", error, usage, engaged }
      : { kind: "error", error, usage, model, engaged };
  }
  function overflow(
    provider: string,
    overflowModel: string | undefined,
  ): SessionError {
    const window = overflowModel === undefined
      ? undefined
      : input.windowOf?.(overflowModel);
    return sessionErrorFromLlm(
      { kind: "context_overflow", retryable: false, provider, message: "" },
      {
        model: overflowModel,
        toolsRan,
        ...(window === undefined ? {} : { window }),
      },
    );
  }

  for (let round = 0;; round++) {
    const request: LlmRequest = {
      ...input.base,
      messages,
      signal: input.signal,
    };
    if (input.tools.length > 0) request.tools = input.tools;
    const collected = new ResponseCollector();
    let attemptNumber = 0;
    let stopReason: Exclude<TurnStopReason, "aborted" | "error"> | undefined;
    let forwarded = false;
    for await (const ev of input.chain.stream(request, input.signal)) {
      const halt = stopped();
      if (halt !== undefined) return halt;
      switch (ev.type) {
        case "attempt_start":
          engaged = true;
          tally.engage();
          attemptModel = ev.model;
          break;
        case "chunk":
          forwarded = true;
          attemptNumber = ev.attemptNumber;
          collected.add(ev.chunk);
          if (ev.chunk.type === "text_delta" && ev.chunk.text !== "") {
            input.emit({
              type: "agent:token",
              nodeId: input.nodeId,
              token: ev.chunk.text,
              model: ev.model,
            });
          } else if (
            ev.chunk.type === "reasoning_delta" && ev.chunk.text !== ""
          ) {
            input.emit({
              type: "agent:reasoning",
              nodeId: input.nodeId,
              text: ev.chunk.text,
              model: ev.model,
            });
          }
          break;
        case "done":
          attemptNumber = ev.attemptNumber;
          model = ev.model;
          usage.input += ev.usage.inputTokens;
          usage.output += ev.usage.outputTokens;
          if (ev.contextExceeded === true) {
            return fail(overflow(ev.provider, ev.model));
          }
          stopReason = ev.stopReason === "error" ? "stop" : ev.stopReason;
          break;
        case "failed": {
          engaged ||= ev.engaged;
          if (ev.engaged) tally.engage();
          const halt2 = stopped();
          if (halt2 !== undefined) return halt2;
          if (ev.refusal !== undefined) return fail(ev.refusal);
          if (ev.error === undefined || ev.error.kind === "cancelled") {
            return fail(sessionError("internal"));
          }
          if (ev.error.kind === "context_overflow") {
            const r = fail(overflow(ev.error.provider, attemptModel ?? model));
            const fresh = round === 0 && !forwarded && !toolsRan;
            return fresh && r.kind === "error"
              ? { ...r, overflowRecoverable: true }
              : r;
          }
          return fail(sessionErrorFromLlm(ev.error, { model, toolsRan }));
        }
        default: {
          const never: never = ev;
          return never;
        }
      }
    }
    const halt = stopped();
    if (halt !== undefined) return halt;
    if (stopReason === undefined) return fail(sessionError("internal"));

    const calls = collected.calls();
    if (calls.length === 0) {
      return {
        kind: "success",
        text: collected.text,
        stopReason,
        usage,
        ...(model === undefined ? {} : { model }),
        toolHistory: history,
        engaged: true,
      };
    }
    if (calls.length > TURN_LIMITS.maxCallsPerResponse) {
      return fail(sessionError(
        "turn_limit",
        `The model issued ${calls.length} tool calls in one response (limit ${TURN_LIMITS.maxCallsPerResponse})`,
      ));
    }
    if (round >= TURN_LIMITS.maxToolRounds) {
      return fail(sessionError(
        "turn_limit",
        `The turn reached its limit of ${TURN_LIMITS.maxToolRounds} tool rounds`,
      ));
    }

    const toolMessages: LlmMessage[] = [];
    const roundEntries: ToolHistoryEntry[] = [];
    let fedBack = false;
    for (const call of calls) {
      let id: string;
      try {
        id = input.nextToolCallId();
      } catch {
        return fail(sessionError(
          "internal",
          "session effect identity could not be reserved",
        ));
      }
      const outcome = input.registry === undefined
        ? unknownToolOutcome(call)
        : await input.registry.dispatch(
          { id, name: call.name, args: call.args },
          {
            signal: input.signal,
            granted: input.granted,
            ...(input.policy === undefined ? {} : { policy: input.policy }),
            interactive: input.interactive,
            emitApproval: (req) =>
              input.emit({
                type: "agent:approval_requested",
                nodeId: input.nodeId,
                toolId: req.toolId,
                action: req.action,
                preview: req.preview,
                attemptNumber,
              }),
            admit: () => input.admitTool(call.name),
          },
        );
      toolsRan = true;
      if (input.isCancelled()) return { kind: "cancelled" };
      input.emit({
        type: "agent:tool_call",
        nodeId: input.nodeId,
        model: model ?? "",
        toolId: outcome.toolId,
        toolInput: outcome.displayInput,
        toolCallId: id,
        attemptNumber,
      });
      input.emit({
        type: "agent:tool_result",
        nodeId: input.nodeId,
        toolId: outcome.toolId,
        success: outcome.kind === "ok",
        outputSummary: outcome.summary,
        toolCallId: id,
        attemptNumber,
      });
      const halt2 = stopped();
      if (halt2 !== undefined) return halt2;
      if (outcome.kind === "fatal") {
        if (outcome.outcome === "cancelled") {
          return stopped() ?? fail(sessionError("cancelled"));
        }
        return fail(outcome.error);
      }
      if (outcome.kind === "feedback") fedBack = true;
      roundEntries.push({
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
    history.push(...roundEntries);
    tally.rounds.push({
      calls: roundEntries.map((h) => h.call),
      results: roundEntries.map((h) => h.result),
    });
    if (fedBack && ++corrections > TURN_LIMITS.maxCorrections) {
      return fail(sessionError(
        "tool_failed",
        `Tool calls could not be corrected within ${TURN_LIMITS.maxCorrections} rounds`,
      ));
    }
    messages = messages.concat(
      [frozen({ role: "assistant", content: collected.assistantContent() })],
      toolMessages,
    );
  }
}
