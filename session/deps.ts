/**
 * What an `AgentSession` is given (session.md §3, DECISIONS.md 12): the
 * platform capabilities it may use. Clock and ids are injected; the store
 * is the host's business, never the session's.
 *
 * @module
 */
import type { ModelCatalog } from "../llm/catalog.ts";
import type { LlmProvider, LlmRequest } from "../llm/provider.ts";
import type { SessionEventDraft } from "../schema/event.ts";
import type { EgressDecision, ToolRegistry } from "../tools/registry.ts";

/**
 * A source of epoch milliseconds.
 *
 * @example A fixed clock
 * ```ts
 * import type { Clock } from "@relavium/session/session";
 * const clock: Clock = { now: () => 0 };
 * ```
 */
export interface Clock {
  /** Epoch milliseconds. */
  now(): number;
}

/**
 * A source of fresh ids (UUIDs in production).
 *
 * @example Sequential ids
 * ```ts
 * import type { IdSource } from "@relavium/session/session";
 * let n = 0;
 * const ids: IdSource = () => `id-${n++}`;
 * ```
 */
export type IdSource = () => string;

/**
 * One egress the engine is about to make, for the pre-egress hook.
 *
 * @example Value
 * ```ts
 * import type { EgressAttempt } from "@relavium/session/session";
 * const a: EgressAttempt = { kind: "tool", toolId: "read_file" };
 * ```
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
 *
 * @example Minimal deps (no tools)
 * ```ts
 * import type { SessionDeps } from "@relavium/session/session";
 * const deps: Pick<SessionDeps, "clock" | "ids"> = { clock: { now: () => 0 }, ids: () => "x" };
 * ```
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
  /** Checked before every provider attempt and every tool effect. */
  preEgress?(attempt: EgressAttempt): EgressDecision;
  /** Told the session-wide realised spend after each priced attempt. */
  updateCost?(cumulativeMicrocents: number): void;
  /**
   * Reserves the turn's effect key at its first tool dispatch (store.md §3).
   * Absent ⇒ an in-memory counter. A throw fails the dispatch closed.
   */
  reserveEffectTurnKey?(): number;
}
