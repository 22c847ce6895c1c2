/**
 * What an `AgentSession` is given, by kind: the effects it may use
 * (clock, ids, providers, keys, sleep, tools, catalog), its settings
 * (plain values, copied at construction) and the host's hooks (the event
 * sink, the commit of finished work, egress checks). Clock and ids are
 * injected; the store is the host's business, never the session's.
 *
 * @module
 */
import type { ModelCatalog } from "../llm/catalog.ts";
import type { LlmProvider, LlmRequest } from "../llm/provider.ts";
import type { SessionEventDraft } from "../schema/event.ts";
import type { EgressDecision, ToolRegistry } from "../tools/registry.ts";
import type { BudgetPolicy } from "./budget.ts";
import type { CompactionReason } from "../schema/event.ts";
import type { FinishedWork } from "./finished_work.ts";

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
 * What the observer awaited when a moment opens is told.
 */
export interface CompactionStart {
  /** Why the compaction runs. */
  reason: CompactionReason;
  /** Whether the window is unknown (manual compaction with disclosure). */
  windowUnknown: boolean;
  /** Aborted by Esc or cancel. */
  signal: AbortSignal;
}

/**
 * The platform capabilities a session may use.
 */
export interface SessionEffects {
  /** Source of event timestamps and cooldown time. */
  clock: { now(): number };
  /** Source of fresh ids. */
  ids: () => string;
  /** Provider by id; `undefined` = not wired (plan fails, memoised). */
  resolveProvider(id: string): LlmProvider | undefined;
  /** The API key for a provider; a throw/rejection is an `auth` failure. */
  keyFor(providerId: string): string | Promise<string>;
  /** Waits `ms`, rejecting early when `signal` aborts. */
  sleep(ms: number, signal: AbortSignal): Promise<void>;
  /** The tool seam; absent ⇒ no tools are advertised. */
  tools?: ToolRegistry;
  /** Prices and windows; absent or unknown model ⇒ `priced: false`. */
  catalog?: ModelCatalog;
  /**
   * Makes the abort controller of each operation: a turn, a user command,
   * a manual compaction, and the after-turn compaction that follows a
   * turn. `abort()` and `cancel()` abort the one it made last. Absent ⇒
   * `new AbortController()`. A throw, or a value that is not a
   * controller, fails that operation before any egress: the turn ends
   * `internal` (not counted), `compact()` and `runUserCommand()` return
   * `failed`, the after-turn compaction is skipped (the turn stands). A
   * controller already aborted ends the operation as aborted before any
   * egress.
   */
  newAbortController?(): AbortController;
}

/**
 * A session's settings: plain values, copied when the session is built
 * (changing the object later changes nothing).
 */
export interface SessionSettings {
  /** Whether a person can answer approval prompts. Default `false`. */
  interactive?: boolean;
  /**
   * The approval mode of the session's turns while no turn policy is set
   * (`setTurnPolicy` replaces it), with nobody to ask: `auto` runs what the
   * guardrails allow (a protected-path write still needs a person),
   * `accept-edits` runs writes inside the jail, `plan` hides and refuses
   * every governed action, `ask` refuses them. Absent (and no turn policy)
   * ⇒ `ask` with no approver: read-only tools run, every governed action
   * (a write, a command, a web request, a custom tool that is not
   * `readOnly`) is refused `no_approval_hook`. Another value ⇒ the
   * constructor throws a `TypeError`. (The one declaration of the mode
   * names; the session hands the value to the mode policy, which checks
   * it.)
   */
  mode?: "ask" | "plan" | "accept-edits" | "auto";
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
   * `[defaults].max_tokens_estimate`: the output reservation when the
   * request carries no cap and the wire sends none (a positive
   * integer).
   */
  maxTokensEstimate?: number;
  /**
   * The cost cap (`max_cost_microcents`, `on_exceed`, `strict_cost_cap`),
   * enforced before every provider attempt, main and summariser, after
   * `preEgress`. Absent or a cap ≤ 0 ⇒ no governor.
   */
  budget?: BudgetPolicy;
}

/**
 * The host's side of a session: where events and finished work go, and
 * the checks before egress.
 */
export interface SessionHooks {
  /** Envelope-free event sink; the host stamps and delivers. */
  emit(draft: SessionEventDraft): void;
  /**
   * Receives each finished piece of work as a value (a completed turn, the
   * spend of a failed one, a compaction or trim boundary, the spend left
   * at cancel), synchronously and before the event announcing it is
   * published: a persister commits it here. A throw does not undo the
   * work: the turn keeps its slot and usage, and the call that did the
   * work rejects with the error once the session is idle again.
   */
  commit?(work: FinishedWork): void;
  /**
   * Awaited after `session:compacting`, before any summariser egress. A
   * throw closes the moment with `session:compaction_failed` (manual
   * `compact()` returns `failed`; an active turn ends `internal`).
   */
  onCompactionStart?(start: CompactionStart): void | Promise<void>;
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
   * attempt (`internal`): no call leaves unjournaled. The host's own
   * refusal (a lease found taken over) carries its named error.
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
    /**
     * Of a turn's request: the number the turn has among the session's
     * provider-engaged turns once this call leaves, so that a call the
     * process never saw the end of still counts its turn toward the cap.
     */
    turnNumber?: number;
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
   * Reserves the turn's effect key at its first tool dispatch.
   * Absent ⇒ an in-memory counter. A throw fails the dispatch closed.
   */
  reserveEffectTurnKey?(): number;
}

/**
 * The engine's own flat view of its effects, settings and hooks (one
 * object the session's parts read). Hook methods are bound to the hooks
 * object they came from.
 */
export interface SessionDeps
  extends SessionEffects, SessionSettings, SessionHooks {}

/** The keys of {@linkcode SessionSettings}. */
export const SETTING_KEYS: readonly (keyof SessionSettings)[] = [
  "interactive",
  "mode",
  "toolNarrowing",
  "maxTurns",
  "maxMessages",
  "autoCompact",
  "compactThreshold",
  "afterTurnCompaction",
  "maxTokensEstimate",
  "budget",
];

/** The optional keys of {@linkcode SessionHooks}. */
export const HOOK_KEYS = [
  "commit",
  "onCompactionStart",
  "preEgress",
  "updateCost",
  "restoreConservativeCost",
  "flushBudgetCommitments",
  "invocationStarted",
  "invocationSettled",
  "reserveEffectTurnKey",
] as const satisfies readonly (keyof SessionHooks)[];

/**
 * The engine's flat deps of a session's effects, settings and hooks: the
 * settings are copied (a later change to the caller's object changes
 * nothing; `toolNarrowing` is copied too), each method is bound to the
 * object it came from.
 *
 * @param effects The capabilities.
 * @param settings The settings, if any.
 * @param hooks The host's hooks.
 * @returns The flat deps.
 */
export function flatDeps(
  effects: SessionEffects,
  settings: SessionSettings | undefined,
  hooks: SessionHooks,
): SessionDeps {
  const deps: SessionDeps = {
    clock: effects.clock,
    ids: effects.ids,
    resolveProvider: (id) => effects.resolveProvider(id),
    keyFor: (id) => effects.keyFor(id),
    sleep: (ms, signal) => effects.sleep(ms, signal),
    emit: (draft) => hooks.emit(draft),
  };
  if (effects.tools !== undefined) deps.tools = effects.tools;
  if (effects.catalog !== undefined) deps.catalog = effects.catalog;
  const make = effects.newAbortController;
  if (make !== undefined) deps.newAbortController = () => make.call(effects);
  for (const key of SETTING_KEYS) {
    const value = settings?.[key];
    if (value === undefined) continue;
    (deps as unknown as Record<string, unknown>)[key] = key === "toolNarrowing"
      ? [...(value as readonly string[])]
      : key === "budget"
      ? { ...(value as BudgetPolicy) }
      : value;
  }
  for (const key of HOOK_KEYS) {
    const hook = hooks[key];
    if (typeof hook === "function") {
      (deps as unknown as Record<string, unknown>)[key] = hook.bind(hooks);
    }
  }
  return deps;
}
