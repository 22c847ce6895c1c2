/**
 * The fallback chain: one object per turn's
 * tool loop that walks the plan, retries, fails over and reports attempts.
 *
 * @module
 */
import type { LlmError, Usage } from "./chunk.ts";
import type { LlmProvider, LlmRequest } from "./provider.ts";
import type { SessionError } from "../schema/event.ts";
import { makeLlmError } from "./errors.ts";
import {
  Attempt,
  type AttemptOutcome,
  cancelledError,
} from "./_chain_attempt.ts";
import type { ChainEvent } from "./chain_event.ts";
import { stripReasoning } from "./_strip_reasoning.ts";

/**
 * One resolved plan entry.
 */
export interface PlanEntry {
  /** The wired provider. */
  provider: LlmProvider;
  /** The model id sent to that provider. */
  model: string;
  /** Attempts for retryable kinds (the primary gets 3). */
  maxAttempts: number;
}

/**
 * Pre-egress admission of one real attempt: allowed, or refused with the
 * session error the turn ends with (budget cap, failure latch).
 */
export type Admission = { allow: true } | { allow: false; error: SessionError };

/**
 * What happened to one attempt.
 */
export interface AttemptReport {
  /** 1-based, counts non-skipped attempts of this chain (the whole turn). */
  attemptNumber: number;
  /** Provider id of the entry. */
  provider: string;
  /** Model id of the entry. */
  model: string;
  /**
   * `skipped` uses no attempt (cooldown, missing capability, no key, or
   * cancelled before the request left).
   */
  outcome: "succeeded" | "failed" | "skipped";
  /** Usage of a succeeded attempt. */
  usage?: Usage;
  /** `false` when the stream ended without usage (zeros reported). */
  usageKnown?: boolean;
  /** Why a failed attempt failed. */
  error?: LlmError;
  /** Why an entry was skipped. */
  skipReason?:
    | "cooldown"
    | "no_streaming"
    | "no_tools"
    | "no_key"
    | "cancelled";
}

/**
 * Options of {@linkcode createChain}.
 */
export interface ChainOptions {
  /** Entries in order: primary first, then the fallbacks. */
  plan: readonly PlanEntry[];
  /** The API key of a provider; a throw or rejection is a fatal `auth` error. */
  keyFor(providerId: string): string | Promise<string>;
  /** Waits `ms` (backoff, `retry-after`); may reject early when `signal` aborts. */
  sleep(ms: number, signal: AbortSignal): Promise<void>;
  /** Epoch ms, for rate-limit cooldowns; absent ⇒ cooldowns never expire. */
  now?(): number;
  /**
   * Pre-egress admission, called before every real attempt. Every allowed
   * admission is followed by exactly one report of that entry, `skipped`
   * when the request never left.
   */
  admit?(
    entry: { provider: string; model: string },
    request: LlmRequest,
  ): Admission;
  /** Each attempt's report, as it settles. */
  onAttempt?(report: AttemptReport): void;
}

/**
 * A chain for one turn: call {@linkcode Chain.stream} once per round.
 */
export interface Chain {
  /** Runs one call through the plan; ends with exactly one `done` or `failed`. */
  stream(request: LlmRequest, signal: AbortSignal): AsyncIterable<ChainEvent>;
}

/** Rate-limit cooldown of a provider, in ms. */
const COOLDOWN_MS = 30_000;
/** Longest `retry-after` the chain waits for; a longer one advances the chain. */
const MAX_RETRY_AFTER_MS = 20_000;
/** Marks a request carrying output of more than one provider. */
const MIXED: unique symbol = Symbol("mixed");

interface ChainState {
  attempts: number;
  cooldowns: Map<string, number>;
  /** Provider whose output the next request carries (strip latch). */
  carried: string | typeof MIXED | undefined;
  busy: boolean;
}

/**
 * Creates the fallback chain of one turn.
 * Per call it walks the plan: abort check; skip an entry (no attempt used)
 * in rate-limit cooldown, without streaming, or without tools when the
 * request has tools; strip reasoning parts when the entry's provider is not
 * the one whose output the request carries; then up to `maxAttempts`
 * attempts of admission → key → call. Retries and failover happen only
 * before the first forwarded chunk; after it an error is surfaced as is.
 * `rate_limit` parks the provider for 30 s (a success clears it) and is
 * retried after `retryAfterMs` when that is ≤ 20 s, else the chain advances;
 * other retryable kinds back off `min(250·2^i, 8000)` ms, jittered (half of
 * it plus up to the other half); fatal kinds stop
 * the chain. Skipped reports carry the number the next real attempt would
 * use. The chain is single-flight: a second concurrent `stream` throws a
 * `TypeError`.
 *
 * @param options Plan, key lookup, sleep, clock, admission, attempt sink.
 * @returns The chain; call `stream` once per round of the turn.
 */
export function createChain(options: ChainOptions): Chain {
  const state: ChainState = {
    attempts: 0,
    cooldowns: new Map(),
    carried: undefined,
    busy: false,
  };
  return {
    stream(
      request: LlmRequest,
      signal: AbortSignal,
    ): AsyncIterable<ChainEvent> {
      return new ChainStream(walkPlan(options, state, request, signal));
    },
  };
}

/** The plan's walk: events and attempts out, each attempt's outcome in. */
type PlanStep = AsyncGenerator<
  ChainEvent | Attempt,
  unknown,
  AttemptOutcome | undefined
>;

const DONE: IteratorReturnResult<undefined> = Object.freeze({
  done: true,
  value: undefined,
});

/**
 * The events of one chain call. The plan's walk (a generator: retries,
 * failover, reports) hands each attempt over as an {@linkcode Attempt};
 * its chunk events are then stepped straight from the provider's stream,
 * with no generator resumed per chunk, and its outcome goes back into the
 * walk.
 */
class ChainStream implements AsyncIterableIterator<ChainEvent> {
  readonly #plan: PlanStep;
  #attempt: Attempt | undefined;

  constructor(plan: PlanStep) {
    this.#plan = plan;
  }

  [Symbol.asyncIterator](): this {
    return this;
  }

  next(): Promise<IteratorResult<ChainEvent>> {
    // A chunk already read goes out without an await.
    const now = this.#attempt?.stepNow();
    if (now !== undefined) return Promise.resolve({ done: false, value: now });
    return this.#next();
  }

  async #next(): Promise<IteratorResult<ChainEvent>> {
    let outcome: AttemptOutcome | undefined;
    while (true) {
      const attempt = this.#attempt;
      if (attempt !== undefined) {
        const event = await attempt.step();
        if (event !== undefined) return { done: false, value: event };
        this.#attempt = undefined;
        outcome = attempt.outcome;
      }
      const r = await this.#plan.next(outcome);
      outcome = undefined;
      if (r.done === true) return DONE;
      if (r.value instanceof Attempt) {
        this.#attempt = r.value;
        continue;
      }
      return { done: false, value: r.value };
    }
  }

  async return(): Promise<IteratorResult<ChainEvent>> {
    this.#attempt?.close();
    this.#attempt = undefined;
    await this.#plan.return(undefined);
    return DONE;
  }
}

function inCooldown(o: ChainOptions, s: ChainState, pid: string): boolean {
  const until = s.cooldowns.get(pid);
  if (until === undefined) return false;
  if (until === Infinity || o.now === undefined) return true;
  return o.now() < until;
}

function park(o: ChainOptions, s: ChainState, pid: string, ms: number): void {
  const until = o.now === undefined ? Infinity : o.now() + ms;
  s.cooldowns.set(pid, Math.max(until, s.cooldowns.get(pid) ?? -Infinity));
}

function skipReason(
  o: ChainOptions,
  s: ChainState,
  entry: PlanEntry,
  request: LlmRequest,
): AttemptReport["skipReason"] {
  if (inCooldown(o, s, entry.provider.id)) return "cooldown";
  if (!entry.provider.supports.streaming) return "no_streaming";
  const wantsTools = (request.tools?.length ?? 0) > 0;
  if (wantsTools && !entry.provider.supports.tools) return "no_tools";
  return undefined;
}

function prepare(
  s: ChainState,
  entry: PlanEntry,
  request: LlmRequest,
  signal: AbortSignal,
): LlmRequest {
  const req: LlmRequest = { ...request, model: entry.model, signal };
  if (!entry.provider.supports.reasoning) delete req.reasoningEffort;
  // Reasoning is only ever the output of a round this chain served (the
  // session's history is text): before the first success there is
  // nothing to strip, and the history is not scanned on every turn.
  if (s.carried !== undefined && s.carried !== entry.provider.id) {
    const stripped = stripReasoning(request.messages);
    if (stripped.stripped) req.messages = stripped.messages;
  }
  return req;
}

/**
 * The wait before retry `i`: half of `min(250·2^i, 8000)` ms plus a jitter
 * of up to the other half, drawn from the clock's milliseconds, so that
 * clients failing together do not retry together (and a test clock makes
 * it exact).
 */
function backoffMs(i: number, now: number): number {
  const base = Math.min(250 * 2 ** i, 8000);
  const jitter = (Math.abs(Math.trunc(now)) % 1000) / 1000;
  return Math.round(base / 2 + (base / 2) * jitter);
}

function cancelledOutcome(pid: string): AttemptOutcome {
  return { type: "error", error: cancelledError(pid), committed: false };
}

async function waitOrAbort(
  o: ChainOptions,
  ms: number,
  signal: AbortSignal,
): Promise<boolean> {
  try {
    await o.sleep(ms, signal);
  } catch {
    return !signal.aborted;
  }
  return !signal.aborted;
}

async function* walkPlan(
  o: ChainOptions,
  s: ChainState,
  request: LlmRequest,
  signal: AbortSignal,
): PlanStep {
  if (s.busy) {
    throw new TypeError(
      "Cannot stream: the chain is single-flight and a call is in progress",
    );
  }
  s.busy = true;
  try {
    let engaged = false;
    let lastError: LlmError | undefined;
    const fail = (error: LlmError): ChainEvent => ({
      type: "failed",
      error,
      engaged,
    });
    for (const [index, entry] of o.plan.entries()) {
      const pid = entry.provider.id;
      const meta = { provider: pid, model: entry.model };
      if (signal.aborted) return yield fail(cancelledError(pid));
      const skip = skipReason(o, s, entry, request);
      if (skip !== undefined) {
        o.onAttempt?.({
          attemptNumber: s.attempts + 1,
          ...meta,
          outcome: "skipped",
          skipReason: skip,
        });
        continue;
      }
      const req = prepare(s, entry, request, signal);
      for (let i = 0; i < entry.maxAttempts; i++) {
        const admission = o.admit?.(meta, req) ?? { allow: true };
        if (!admission.allow) {
          return yield { type: "failed", refusal: admission.error, engaged };
        }
        const unsent = (skipReason: "no_key" | "cancelled"): void =>
          o.onAttempt?.({
            attemptNumber: s.attempts + 1,
            ...meta,
            outcome: "skipped",
            skipReason,
          });
        let key: string;
        try {
          // A key at hand is used at once (no wait for a resolved promise).
          const found = o.keyFor(pid);
          key = typeof found === "string" ? found : await found;
        } catch {
          unsent("no_key");
          // A fallback entry without a key is skipped, not fatal; the host
          // warns about it once, before the session.
          if (index > 0) break;
          const message = `credential resolution failed for provider ${pid}`;
          return yield fail(makeLlmError("auth", pid, message));
        }
        if (signal.aborted) {
          unsent("cancelled");
          return yield fail(cancelledError(pid));
        }
        const attemptNumber = ++s.attempts;
        engaged = true;
        yield { type: "attempt_start", attemptNumber, ...meta };
        const input = { provider: entry.provider, request: req, key, signal };
        // The caller steps the attempt and sends its outcome back.
        const outcome = (yield new Attempt({ ...input, attemptNumber })) ??
          cancelledOutcome(pid);
        if (outcome.type === "stop") {
          const usage = outcome.usage;
          o.onAttempt?.({
            attemptNumber,
            ...meta,
            outcome: "succeeded",
            usage: { ...usage },
            usageKnown: outcome.usageUnknown !== true,
          });
          s.cooldowns.delete(pid);
          s.carried = s.carried === undefined || s.carried === pid
            ? pid
            : MIXED;
          const done: ChainEvent = {
            type: "done",
            attemptNumber,
            ...meta,
            stopReason: outcome.stopReason,
            usage,
          };
          if (outcome.contextExceeded === true) done.contextExceeded = true;
          return yield done;
        }
        const error = signal.aborted ? cancelledError(pid) : outcome.error;
        o.onAttempt?.({ attemptNumber, ...meta, outcome: "failed", error });
        if (error.kind === "cancelled" || outcome.committed) {
          return yield fail(error);
        }
        // Seam: `auth` would get one out-of-band refresh per provider per
        // chain here; until a refresh hook exists it is fatal.
        if (!error.retryable) return yield fail(error);
        lastError = error;
        const last = i + 1 >= entry.maxAttempts;
        let wait = backoffMs(i, o.now?.() ?? 0);
        if (error.kind === "rate_limit") {
          const after = error.retryAfterMs;
          park(o, s, pid, Math.max(COOLDOWN_MS, after ?? 0));
          if (after !== undefined && after > MAX_RETRY_AFTER_MS) break;
          if (after !== undefined) wait = after;
        }
        if (last) break;
        if (!await waitOrAbort(o, wait, signal)) {
          return yield fail(cancelledError(pid));
        }
      }
    }
    const provider = o.plan[0]?.provider.id ?? "chain";
    yield fail(
      lastError ??
        makeLlmError("unknown", provider, "fallback chain exhausted"),
    );
  } finally {
    s.busy = false;
  }
}
