/**
 * What one turn has engaged, used and spent so far, kept outside the
 * turn's call stack so it survives whatever throws: a turn that engaged a
 * provider consumes its cap slot at that moment and keeps its real usage
 * and spend even when a callback fails afterwards.
 *
 * @module
 */
import type { AttemptReport } from "../llm/chain.ts";
import type { CostEntry, ToolRound, TurnCommit } from "../schema/turn.ts";
import type { FinishedWork } from "./finished_work.ts";
import { sessionError } from "./turn_errors.ts";
import type { TurnCoreResult } from "./turn_result.ts";

/**
 * The running account of one turn.
 */
export class TurnTally {
  /** Whether a provider attempt of this turn has started. */
  engaged = false;
  /**
   * Tokens of the turn's settled attempts (overflow retry included),
   * counted as each attempt settles, before any callback can throw.
   */
  readonly usage: { input: number; output: number } = { input: 0, output: 0 };
  /** The model that answered last, when one did. */
  model: string | undefined;
  /** Priced spend rows of the turn's own attempts, in order. */
  readonly costs: CostEntry[] = [];
  /** Completed tool rounds: each response's calls and their results. */
  readonly rounds: ToolRound[] = [];
  /** The user's message of this turn. */
  readonly userText: string;
  #onEngage: () => void;

  /**
   * @param userText The user's message of this turn.
   * @param onEngage Called once, at the turn's first provider attempt.
   */
  constructor(userText: string, onEngage: () => void) {
    this.userText = userText;
    this.#onEngage = onEngage;
  }

  /**
   * Counts a settled attempt's usage and model.
   *
   * @param report The chain's attempt report.
   */
  settle(report: AttemptReport): void {
    if (report.usage === undefined) return;
    this.usage.input += report.usage.inputTokens;
    this.usage.output += report.usage.outputTokens;
    this.model = report.model;
  }

  /**
   * The completed turn as the host commits it (the tally is done with: its
   * rounds and costs are handed over, not copied).
   *
   * @param result The turn core's success.
   * @returns The turn's user text, rounds, final text, model, usage, costs.
   */
  completed(
    result: {
      text: string;
      model?: string;
      usage: { input: number; output: number };
    },
  ): TurnCommit {
    return {
      userText: this.userText,
      rounds: this.rounds,
      finalText: result.text,
      ...(result.model === undefined ? {} : { modelId: result.model }),
      tokensUsed: { input: result.usage.input, output: result.usage.output },
      costs: this.costs,
    };
  }

  /**
   * What the host is handed when the turn ends with `result`: the
   * completed turn, or the spend of one that failed or was aborted (an
   * engaged turn still took its slot); nothing when it engaged and spent
   * nothing. The rows are handed over, not copied.
   *
   * @param result The turn's final, non-cancelled result.
   * @param turnsUsed The session's provider-engaged turns.
   * @returns The finished work, if any.
   */
  handover(
    result: Exclude<TurnCoreResult, { kind: "cancelled" }>,
    turnsUsed: number,
  ): FinishedWork | undefined {
    if (result.kind === "success") {
      return { kind: "turn", turn: this.completed(result), turnsUsed };
    }
    if (this.costs.length > 0 || result.engaged) {
      return { kind: "spend", costs: this.costs, turnsUsed };
    }
    return undefined;
  }

  /**
   * The `internal` failure a turn ends with when a callback threw: what it
   * had engaged and used so far.
   *
   * @returns The error result.
   */
  internalError(): TurnCoreResult {
    return {
      kind: "error",
      error: sessionError("internal"),
      usage: { ...this.usage },
      engaged: this.engaged,
      ...(this.model === undefined ? {} : { model: this.model }),
    };
  }

  /** Marks the turn engaged (the first time only, the slot is taken). */
  engage(): void {
    if (this.engaged) return;
    this.engaged = true;
    this.#onEngage();
  }
}
