/**
 * What an `AgentSession` is given: the
 * platform capabilities it may use. Clock and ids are injected; the store
 * is the host's business, never the session's.
 *
 * @module
 */
import type { ModelCatalog } from "../llm/catalog.ts";
import type { LlmProvider, LlmRequest } from "../llm/provider.ts";
import type { SessionEventDraft } from "../schema/event.ts";
import type { EgressDecision, ToolRegistry } from "../tools/registry.ts";
import type { BudgetPolicy } from "./budget.ts";
import type { CompactionStart } from "./compaction_run.ts";

/**
 * A source of epoch milliseconds.
 */
export interface Clock {
  /** Epoch milliseconds. */
  now(): number;
}

/**
 * A source of fresh ids (UUIDs in production).
 */
export type IdSource = () => string;

/**
 * One egress the engine is about to make, for the pre-egress hook.
 */
export type EgressAttempt =
  | {
    kind: "provider";
    provider: string;
    model: string;
    purpose: "turn" | "summary";
    request: LlmRequest;
  }
  | { kind: "tool"; toolId: string };

/**
 * Injected capabilities of one session instance.
 */
export interface SessionDeps {
  /** Source of event timestamps and cooldown time. */
  clock: Clock;
  /** Source of fresh ids. */
  ids: IdSource;
  /** Provider by id; `undefined` = not wired (plan fails, memoised). */
  resolveProvider(id: string): LlmProvider | undefined;
  /** The API key for a provider; a throw/rejection is an `auth` failure. */
  keyFor(providerId: string): string | Promise<string>;
  /** Waits `ms`, rejecting early when `signal` aborts. */
  sleep(ms: number, signal: AbortSignal): Promise<void>;
  /** Envelope-free event sink; the host stamps and delivers. */
  emit(draft: SessionEventDraft): void;
  /** The tool seam; absent ⇒ no tools are advertised. */
  tools?: ToolRegistry;
  /** Prices and windows; absent or unknown model ⇒ `priced: false`. */
  catalog?: ModelCatalog;
  /** Whether a person can answer approval prompts. Default `false`. */
  interactive?: boolean;
  /** Session narrowing of the agent's tools (only removes). */
  toolNarrowing?: readonly string[];
  /** Hard cap of provider-engaged turns; absent or ≤ 0 ⇒ 50. */
  maxTurns?: number;
  /**
   * `[chat].max_messages`: the bound of the after-turn fallback trim when
   * an automatic compaction fails (a positive integer; absent ⇒ no
   * fallback). Callers also use it as the default bound of `/trim`.
   */
  maxMessages?: number;
  /**
   * `[chat].auto_compact`: whether automatic compaction (after-turn,
   * pre-send, overflow recovery) runs when the agent omits `memory`.
   * Default `true`; ignored under `memory: summary` (always on) and
   * `none`/`window` (never).
   */
  autoCompact?: boolean;
  /**
   * `[chat].compact_threshold` in (0, 1], default 0.8: compact when the
   * next request's estimate exceeds `threshold × window`. Outside the
   * range the constructor throws a `TypeError`.
   */
  compactThreshold?: number;
  /** `false` skips only the after-turn trigger (one-shot runs). */
  afterTurnCompaction?: boolean;
  /**
   * Awaited after `session:compacting`, before any summariser egress. A
   * throw closes the moment with `session:compaction_failed` (manual
   * `compact()` returns `failed`; an active turn ends `internal`).
   */
  onCompactionStart?(start: CompactionStart): void | Promise<void>;
  /**
   * `[defaults].max_tokens_estimate`: the output reservation when the
   * request carries no cap and the wire sends none (copied at
   * construction; a positive integer).
   */
  maxTokensEstimate?: number;
  /**
   * The cost cap (`max_cost_microcents`, `on_exceed`, `strict_cost_cap`),
   * enforced before every provider attempt, main and summariser, after
   * `preEgress`. Absent or a cap ≤ 0 ⇒ no governor.
   */
  budget?: BudgetPolicy;
  /** Checked before every provider attempt and every tool effect. */
  preEgress?(attempt: EgressAttempt): EgressDecision;
  /** Told the session-wide realised spend after each priced attempt. */
  updateCost?(cumulativeMicrocents: number): void;
  /** Told the conservative (estimated) spend once, on resume. */
  restoreConservativeCost?(conservativeMicrocents: number): void;
  /**
   * Awaited before a turn terminal is published (the host's budget
   * commitment flush). A rejection ends the turn `internal`.
   */
  flushBudgetCommitments?(): Promise<void>;
  /**
   * Usage coverage, before egress: told of every provider attempt the
   * session admits (after `preEgress` and the cost cap), before its
   * request leaves; the host journals it as pending. A throw refuses the
   * attempt (`internal`): no call leaves unjournaled.
   */
  invocationStarted?(invocation: {
    /** A fresh id (from `ids`). */
    id: string;
    /** A turn's request (any round) or a summariser pass. */
    purpose: "turn" | "summary";
    /** Provider id. */
    provider: string;
    /** Model id. */
    model: string;
  }): void;
  /**
   * Usage coverage, after the attempt: its coverage and money in one call
   * (`priced`/`unpriced`: usage reported; `no_usage`: it ended, e.g.
   * failed, without usage, counted as zero; `not_sent`: it never left).
   * A throw leaves it pending: the session then counts it unaccounted.
   */
  invocationSettled?(settlement: {
    /** The id `invocationStarted` was told. */
    id: string;
    /** How much of its usage is known. */
    coverage: "priced" | "unpriced" | "no_usage" | "not_sent";
    /** Input tokens reported. */
    inputTokens: number;
    /** Output tokens reported. */
    outputTokens: number;
    /** Realised spend in micro-cents. */
    costMicrocents: number;
  }): void;
  /**
   * Provider calls of earlier runs whose usage stayed unknown; a resume
   * adopts the stored count, and `cost:updated` reports it. Absent ⇒ 0: a
   * fresh session starts as a complete zero.
   */
  unaccountedCalls?: number;
  /**
   * Reserves the turn's effect key at its first tool dispatch.
   * Absent ⇒ an in-memory counter. A throw fails the dispatch closed.
   */
  reserveEffectTurnKey?(): number;
}
