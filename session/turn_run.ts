/**
 * What the turn core has gathered over one turn, shared by its stream
 * step and its tool-round step, and by the retry after an overflow
 * recovery (so usage and engagement add up over both runs): usage, the
 * model, whether the provider was engaged, whether a tool ran, the tool
 * history, the turn's tool-call ids, and how the turn ends (stopped,
 * failed).
 *
 * @module
 */
import type { LlmMessage } from "../llm/provider.ts";
import type { SessionError, ToolHistoryEntry } from "../schema/event.ts";
import type { TurnCoreResult } from "./turn_result.ts";

/**
 * What a run reads of its turn: cancel state, signal, and the source of
 * the turn's effect key.
 */
export interface RunParts {
  /** Whether `cancel()` was called. */
  isCancelled(): boolean;
  /** The turn's signal. */
  signal: AbortSignal;
  /** Reserves the turn's effect key (called once, at the first tool call). */
  turnKey(): number;
}

/**
 * The running state of one turn's core runs.
 */
export class TurnRun {
  /** Tokens of this turn's settled attempts. */
  readonly usage: { input: number; output: number } = { input: 0, output: 0 };
  /** Tool calls and results of this turn, in order. */
  readonly history: ToolHistoryEntry[] = [];
  /** The model that answered last, when one did. */
  model: string | undefined;
  /** The model of the attempt that started last. */
  attemptModel: string | undefined;
  /** Whether a provider attempt was engaged. */
  engaged = false;
  /** Whether a tool ran in this turn. */
  toolsRan = false;
  /** Rounds whose calls were fed back for correction. */
  corrections = 0;
  readonly #parts: RunParts;
  #turnKey: number | undefined;
  #slot = 0;

  /**
   * @param parts The turn's cancel state, signal and effect-key source.
   */
  constructor(parts: RunParts) {
    this.#parts = parts;
  }

  /**
   * How the turn ends now if it was cancelled or aborted.
   *
   * @returns `cancelled`, `aborted`, or `undefined` to go on.
   */
  stopped(): TurnCoreResult | undefined {
    if (this.#parts.isCancelled()) return { kind: "cancelled" };
    if (this.#parts.signal.aborted) {
      const { usage, engaged, model } = this;
      return model === undefined
        ? { kind: "aborted", usage, engaged }
        : { kind: "aborted", usage, model, engaged };
    }
    return undefined;
  }

  /**
   * The turn's failure with `error`.
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
   * How the turn ends when context management stops it before or between
   * runs: `aborted` without an error, else failed with it.
   *
   * @param error The refusal or failure, if any.
   * @returns The result.
   */
  halt(error: SessionError | undefined): TurnCoreResult {
    if (error !== undefined) return this.fail(error);
    return { kind: "aborted", usage: this.usage, engaged: this.engaged };
  }

  /**
   * The next engine tool-call id; reserves the turn's effect key at the
   * first call (a throw fails the dispatch closed).
   *
   * @returns `session-tool:<key>:<slot>`.
   * @throws {RangeError} When the reserved key is not a positive integer.
   */
  nextToolCallId(): string {
    const key = this.#turnKey ??= this.#parts.turnKey();
    if (!Number.isSafeInteger(key) || key < 1) {
      throw new RangeError("Invalid turn key");
    }
    return `session-tool:${key}:${this.#slot++}`;
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
