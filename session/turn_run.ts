/**
 * What one run of the turn core has gathered so far, shared by its stream
 * step and its tool-round step: usage, the model, whether the provider
 * was engaged, whether a tool ran, the tool history, and how a run ends
 * (stopped, failed, overflowed).
 *
 * @module
 */
import type { LlmMessage } from "../llm/provider.ts";
import type { SessionError, ToolHistoryEntry } from "../schema/event.ts";
import type { TurnContext } from "./turn_context.ts";
import type { TurnCoreResult } from "./turn_result.ts";
import { sessionErrorFromLlm } from "./turn_errors.ts";

/**
 * The running state of one turn-core run.
 */
export class TurnRun {
  /** Tokens of this run's settled attempts. */
  readonly usage: { input: number; output: number } = { input: 0, output: 0 };
  /** Tool calls and results of this run, in order. */
  readonly history: ToolHistoryEntry[] = [];
  /** The model that answered last, when one did. */
  model: string | undefined;
  /** The model of the attempt that started last. */
  attemptModel: string | undefined;
  /** Whether a provider attempt was engaged. */
  engaged = false;
  /** Whether a tool ran in this run. */
  toolsRan = false;
  /** Rounds whose calls were fed back for correction. */
  corrections = 0;
  readonly #turn: TurnContext;

  /**
   * @param turn The turn's context (cancel state and signal).
   */
  constructor(turn: TurnContext) {
    this.#turn = turn;
  }

  /**
   * How the run ends now if it was cancelled or aborted.
   *
   * @returns `cancelled`, `aborted`, or `undefined` to go on.
   */
  stopped(): TurnCoreResult | undefined {
    if (this.#turn.isCancelled()) return { kind: "cancelled" };
    if (this.#turn.signal.aborted) {
      const { usage, engaged, model } = this;
      return model === undefined
        ? { kind: "aborted", usage, engaged }
        : { kind: "aborted", usage, model, engaged };
    }
    return undefined;
  }

  /**
   * The run's failure with `error`.
   *
   * @param error The classified error.
   * @returns The error result.
   */
  fail(error: SessionError): TurnCoreResult {
    const { usage, engaged, model } = this;
    return model === undefined
      ? { kind: "error", error, usage, engaged }
      : { kind: "error", error, usage, model, engaged };
  }

  /**
   * The error of a context overflow, naming the model's window when known.
   *
   * @param provider The provider that overflowed.
   * @param model The model it overflowed on, if known.
   * @returns The classified error.
   */
  overflow(provider: string, model: string | undefined): SessionError {
    const window = model === undefined ? undefined : this.#turn.windowOf(model);
    return sessionErrorFromLlm(
      { kind: "context_overflow", retryable: false, provider, message: "" },
      {
        model,
        toolsRan: this.toolsRan,
        ...(window === undefined ? {} : { window }),
      },
    );
  }
}

/** Freezes a parsed JSON value at every level (bounded by its depth). */
function deepFreeze(value: unknown): void {
  if (typeof value !== "object" || value === null || Object.isFrozen(value)) {
    return;
  }
  Object.freeze(value);
  for (const v of Object.values(value)) deepFreeze(v);
}

/**
 * Freezes a message at every level: its part list, each part, and a tool
 * call's arguments and a tool result's value. Requests share it as it is
 * (a provider that must edit copies).
 *
 * @param message The message.
 * @returns The same message, frozen.
 */
export function frozen(message: LlmMessage): LlmMessage {
  for (const part of message.content) {
    if (part.type === "tool_call") deepFreeze(part.args);
    if (part.type === "tool_result") deepFreeze(part.result);
    Object.freeze(part);
  }
  Object.freeze(message.content);
  return Object.freeze(message);
}
