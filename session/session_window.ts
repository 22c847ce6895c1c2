/**
 * The one place where finished work leaves the session and where window
 * decisions land: the working state, the spend of an open compaction, and
 * the commit hook (its first throw kept for the caller).
 *
 * @module
 */
import type { CostEntry } from "../schema/turn.ts";
import type { SessionDeps } from "./deps.ts";
import type { FinishedWork } from "./finished_work.ts";
import type { SpendLedger } from "./ledger.ts";
import type { Summariser } from "./window/compact.ts";
import type { ContextState, WindowStep, WindowView } from "./window/state.ts";
import { trimSteps } from "./window/trim.ts";
import { compactWith } from "./window/window.ts";
import {
  type CompactionResult,
  toCompactionResult,
  type TrimResult,
} from "./memory_policy.ts";

/**
 * The session's working state and its handover to the host.
 */
export class SessionWindow {
  /** The working transcript, its spans and summary. */
  state: ContextState = { messages: [], spans: [] };
  // Summariser spend not yet handed over (a compaction still open).
  #momentCosts: CostEntry[] = [];
  // The first error a commit hook threw during the current call.
  #commitError: { error: unknown } | undefined;
  readonly #deps: Pick<SessionDeps, "commit" | "emit">;
  readonly #isCancelled: () => boolean;

  /**
   * @param deps The commit hook and the event sink.
   * @param isCancelled Whether the session was cancelled (it then takes
   * no window step).
   */
  constructor(
    deps: Pick<SessionDeps, "commit" | "emit">,
    isCancelled: () => boolean,
  ) {
    this.#deps = deps;
    this.#isCancelled = isCancelled;
  }

  /**
   * Hands finished work to the host; a throw is kept for the caller.
   *
   * @param work The finished work.
   */
  commit(work: FinishedWork): void {
    const hook = this.#deps.commit;
    if (hook === undefined) return;
    try {
      hook(work);
    } catch (error) {
      this.#commitError ??= { error };
    }
  }

  /** Forgets a kept commit error (a new call starts). */
  resetCommitError(): void {
    this.#commitError = undefined;
  }

  /** Rethrows the commit hook's first error of this call, once. */
  rethrowCommitError(): void {
    const kept = this.#commitError;
    this.#commitError = undefined;
    if (kept !== undefined) throw kept.error;
  }

  /**
   * The summariser's inputs; its spend list is the open moment's.
   *
   * @param signal The work's signal.
   * @param ledger The session's ledger.
   * @returns Signal, ledger and a fresh spend list.
   */
  summariser(signal: AbortSignal, ledger: SpendLedger): Summariser {
    const spend: CostEntry[] = [];
    this.#momentCosts = spend;
    return { signal, ledger, spend };
  }

  /**
   * A cancel's hand-over: the unfinished turn's spend and the open
   * moment's spend, committed as the session's end (the moment closes).
   *
   * @param turnCosts The spend the unfinished turn recorded.
   * @param turnsUsed The session's provider-engaged turns.
   */
  end(turnCosts: readonly CostEntry[], turnsUsed: number): void {
    const costs = [...turnCosts, ...this.#momentCosts];
    this.#momentCosts = [];
    this.commit({ kind: "ended", costs, turnsUsed });
  }

  /**
   * Takes the steps of a window decision: install the state, hand the
   * boundary or the summariser spend over as a value, then publish the
   * event. A cancelled session takes none (its `session:cancelled` closes
   * any open moment and the cancel handed the spend over).
   *
   * @param steps The steps, in order.
   * @param turnsUsed The session's provider-engaged turns.
   */
  apply(steps: readonly WindowStep[], turnsUsed: number): void {
    for (const step of steps) {
      if (this.#isCancelled()) return;
      if (step.state !== undefined) this.state = step.state;
      const handover = step.handover;
      if (handover !== undefined) {
        this.commit(
          handover.kind === "boundary"
            ? { kind: "boundary", marker: handover.marker, turnsUsed }
            : { kind: "spend", costs: handover.costs, turnsUsed },
        );
        this.#momentCosts = [];
      }
      this.#deps.emit(step.event);
    }
  }

  /**
   * A manual trim: drops whole turns from the front, keeping about `n`
   * trailing messages, and takes its step.
   *
   * @param n How many trailing messages to keep (a positive integer).
   * @param turnsUsed The session's provider-engaged turns.
   * @returns The outcome.
   * @throws {RangeError} When `n` is not a positive integer.
   */
  trim(n: number, turnsUsed: number): TrimResult {
    const { steps, ...out } = trimSteps(this.state, n, "manual");
    this.apply(steps, turnsUsed);
    return out;
  }

  /**
   * A manual compaction over `view`, and its steps.
   *
   * @param view The next request's parts.
   * @param work The signal, the ledger and the turns used.
   * @returns The outcome as `compact()` returns it.
   */
  async compact(
    view: WindowView,
    work: { signal: AbortSignal; ledger: SpendLedger; turnsUsed: number },
  ): Promise<CompactionResult> {
    const out = await compactWith(view, {
      state: this.state,
      reason: "manual",
      summariser: this.summariser(work.signal, work.ledger),
      manual: true,
    });
    this.apply(out.steps, work.turnsUsed);
    return toCompactionResult(out);
  }
}
