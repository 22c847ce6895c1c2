/**
 * Measured triggers: which window is authoritative, the output
 * reservation, the next request measured (in the provider's count when it
 * has one), and whether it calls for a compaction. Pure but for the
 * provider's count.
 *
 * @module
 */
import type { PlanEntry } from "../../llm/chain.ts";
import type { ModelCatalog } from "../../llm/catalog.ts";
import type { LlmProvider } from "../../llm/provider.ts";
import { estimateState, requestHistory } from "./projection.ts";
import { rebaseSpans } from "./spans.ts";
import type { ContextState, WindowView } from "./state.ts";

/**
 * Fixed limits of the compaction primitive.
 */
export const COMPACTION_LIMITS: {
  readonly maxPasses: number;
  readonly summaryMaxTokens: number;
  readonly unknownWindowBound: number;
} = { maxPasses: 4, summaryMaxTokens: 4096, unknownWindowBound: 16_384 };

/** Default `compactThreshold`. */
export const DEFAULT_COMPACT_THRESHOLD = 0.8;

/** Output reservation when nothing else decides it. */
export const DEFAULT_OUTPUT_RESERVATION = 4096;

/**
 * The window of `model` if it is authoritative: finite and positive, the
 * provider does not manage its own context, and it is not a custom
 * endpoint unless that endpoint declares its window (`windowDeclared`).
 *
 * @param provider The entry's provider.
 * @param model The entry's model.
 * @returns The window in tokens, or `undefined`.
 */
export function authoritativeWindow(
  provider: LlmProvider,
  model: string,
): number | undefined {
  if (provider.customEndpoint && provider.windowDeclared !== true) {
    return undefined;
  }
  if (provider.managesOwnContext?.() === true) return undefined;
  const w = provider.contextLimit?.(model);
  return typeof w === "number" && Number.isFinite(w) && w > 0 ? w : undefined;
}

/**
 * The authoritative window of a plan's model (see
 * {@linkcode authoritativeWindow}), for the wording of an overflow.
 *
 * @param plan The plan the request went through.
 * @param model The model, if known.
 * @returns The window in tokens, or `undefined`.
 */
export function planWindow(
  plan: readonly PlanEntry[],
  model: string | undefined,
): number | undefined {
  const entry = model === undefined
    ? undefined
    : plan.find((p) => p.model === model);
  return entry === undefined
    ? undefined
    : authoritativeWindow(entry.provider, entry.model);
}

/**
 * What decides an attempt's output reservation.
 */
export interface ReservationInput {
  /** The request's output cap (authored `max_tokens`, or the summary cap). */
  maxTokens?: number;
  /** The provider's wire family (Anthropic always sends a cap). */
  kind: LlmProvider["kind"];
  /** `[defaults].max_tokens_estimate`, used only on an uncapped wire. */
  maxTokensEstimate?: number;
  /** The model's output ceiling, when the catalog knows it. */
  maxOutputTokens?: number;
}

/**
 * The output reservation of one attempt: the request's cap →
 * the adapter default actually sent (Anthropic: 4096) →
 * `maxTokensEstimate` (uncapped wire only) → 4096; clamped to the model's
 * output ceiling when known.
 *
 * @param input Cap, wire family, estimate, ceiling.
 * @returns Reserved output tokens.
 */
export function outputReservation(input: ReservationInput): number {
  const wanted = input.maxTokens ??
    (input.kind === "anthropic"
      ? DEFAULT_OUTPUT_RESERVATION
      : input.maxTokensEstimate ?? DEFAULT_OUTPUT_RESERVATION);
  const ceiling = input.maxOutputTokens;
  return ceiling !== undefined && ceiling > 0
    ? Math.min(wanted, ceiling)
    : wanted;
}

/**
 * The output reservation of an attempt on a model.
 *
 * @param deps The catalog (output ceilings) and `maxTokensEstimate`.
 * @param entry The provider's wire family and the model.
 * @param maxTokens The request's cap, if any.
 * @returns Reserved output tokens.
 */
export function reservationOf(
  deps: { catalog?: ModelCatalog; maxTokensEstimate?: number },
  entry: { kind: LlmProvider["kind"]; model: string },
  maxTokens: number | undefined,
): number {
  const ceiling = deps.catalog?.lookup(entry.model)?.maxOutputTokens;
  return outputReservation({
    kind: entry.kind,
    ...(maxTokens === undefined ? {} : { maxTokens }),
    ...(deps.maxTokensEstimate === undefined
      ? {}
      : { maxTokensEstimate: deps.maxTokensEstimate }),
    ...(ceiling === undefined ? {} : { maxOutputTokens: ceiling }),
  });
}

/**
 * The plan entries an attempt could use after capability skips (no
 * streaming; no tools when the request has tools).
 *
 * @param plan The resolved plan.
 * @param needsTools Whether the request advertises tools.
 * @returns The attemptable entries, in order.
 */
export function attemptableEntries(
  plan: readonly PlanEntry[],
  needsTools: boolean,
): PlanEntry[] {
  return plan.filter((e) =>
    e.provider.supports.streaming && (!needsTools || e.provider.supports.tools)
  );
}

/**
 * The bound every summariser request must satisfy: `estimate ≤ bound`,
 * i.e. `estimate + 4096 ≤ window` for every attemptable entry, and for a
 * manual compaction over an unknown window also `estimate ≤ 16,384`.
 *
 * @param plan The resolved plan.
 * @param manual Whether unknown windows are allowed (with disclosure).
 * @returns The bound and whether a window was unknown, or `undefined`
 * when automatic work must be skipped (or no entry is attemptable).
 */
export function summariserBound(
  plan: readonly PlanEntry[],
  manual: boolean,
): { bound: number; windowUnknown: boolean } | undefined {
  const entries = attemptableEntries(plan, false);
  if (entries.length === 0) return undefined;
  let bound = Infinity;
  let windowUnknown = false;
  for (const e of entries) {
    const w = authoritativeWindow(e.provider, e.model);
    if (w === undefined) {
      if (!manual) return undefined;
      windowUnknown = true;
      bound = Math.min(bound, COMPACTION_LIMITS.unknownWindowBound);
    } else {
      bound = Math.min(bound, w - COMPACTION_LIMITS.summaryMaxTokens);
    }
  }
  return { bound, windowUnknown };
}

/**
 * Where a compaction's summariser runs: its bound (see
 * {@linkcode summariserBound}) and the first attemptable entry, on which
 * pass 1 is admitted before the moment opens.
 *
 * @param plan The resolved plan.
 * @param manual Whether unknown windows are allowed (with disclosure).
 * @returns The bound, the disclosure and the entry, or `undefined` when
 * no bound can be set.
 */
export function summaryTarget(
  plan: readonly PlanEntry[],
  manual: boolean,
): { bound: number; windowUnknown: boolean; entry: PlanEntry } | undefined {
  const bound = summariserBound(plan, manual);
  const entry = attemptableEntries(plan, false)[0];
  return bound === undefined || entry === undefined
    ? undefined
    : { ...bound, entry };
}

/**
 * A measurement of the next request against its window.
 */
export interface Measurement {
  /** Estimated input tokens of the request. */
  tokens: number;
  /** The authoritative window of the first attemptable entry. */
  window: number;
  /** That entry's output reservation. */
  reservation: number;
  /** `compactThreshold`, in (0, 1]. */
  threshold: number;
}

/**
 * The trigger: `tokens > threshold × window` or
 * `tokens + reservation > window`. Billed usage never enters it.
 *
 * @param m The measurement.
 * @returns Which condition fired, or `undefined`.
 */
export function compactionTrigger(
  m: Measurement,
): "threshold" | "reservation" | undefined {
  if (m.tokens > m.threshold * m.window) return "threshold";
  if (m.tokens + m.reservation > m.window) return "reservation";
  return undefined;
}

/**
 * Checks a `compactThreshold` (range (0, 1]).
 *
 * @param value The configured value, or `undefined`.
 * @returns The threshold (default 0.8).
 * @throws {TypeError} When the value is outside (0, 1].
 */
export function checkCompactThreshold(value: number | undefined): number {
  if (value === undefined) return DEFAULT_COMPACT_THRESHOLD;
  if (typeof value !== "number" || !(value > 0 && value <= 1)) {
    throw new TypeError(
      "Invalid compactThreshold: expected a number in (0, 1]",
    );
  }
  return value;
}

/** The entry a request is measured against, its window and reservation. */
function target(
  view: WindowView,
): { entry: PlanEntry; window: number; reservation: number } | undefined {
  const entry = attemptableEntries(view.plan, view.tools.length > 0)[0];
  if (entry === undefined) return undefined;
  const window = authoritativeWindow(entry.provider, entry.model);
  if (window === undefined) return undefined;
  const reservation = reservationOf(
    view.deps,
    { kind: entry.provider.kind, model: entry.model },
    view.agent.max_tokens,
  );
  return { entry, window, reservation };
}

/**
 * Measures the next request against the first attemptable entry, by the
 * heuristic estimate.
 *
 * @param view The next request's parts.
 * @param state The current state.
 * @param pending The pending user text (absent after a turn).
 * @returns The measurement, or `undefined` when that entry's window is
 * not authoritative.
 */
export function measureNext(
  view: WindowView,
  state: ContextState,
  pending?: string,
): Measurement | undefined {
  const t = target(view);
  if (t === undefined) return undefined;
  const { window, reservation } = t;
  const tokens = estimateState(view, state, pending);
  return { tokens, window, reservation, threshold: view.threshold };
}

/**
 * Measures the next request (see {@linkcode measureNext}), in the count
 * of the first attemptable entry's provider when it has `estimateTokens`:
 * raced with `signal`, falling back to the heuristic when the count
 * throws, rejects or is not a finite number ≥ 0.
 *
 * @returns The measurement, `undefined` when the window is not
 * authoritative, or `aborted` when the signal aborted while it counted.
 */
function measureRequest(
  view: WindowView,
  state: ContextState,
  options: { pending?: string; signal: AbortSignal },
):
  | Counted
  | undefined
  | Promise<Counted | undefined | "aborted"> {
  const t = target(view);
  if (t === undefined) return undefined;
  if (t.entry.provider.estimateTokens !== undefined) {
    return providerCount(view, state, { ...t, ...options });
  }
  const { window, reservation } = t;
  const tokens = estimateState(view, state, options.pending);
  return {
    tokens,
    window,
    reservation,
    threshold: view.threshold,
    estimate: tokens,
  };
}

/** A measurement, with the heuristic estimate it may have replaced. */
type Counted = Measurement & { estimate: number };

/** The request in the entry's provider's count (see {@linkcode measureRequest}). */
async function providerCount(
  view: WindowView,
  state: ContextState,
  options: {
    entry: PlanEntry;
    window: number;
    reservation: number;
    pending?: string;
    signal: AbortSignal;
  },
): Promise<Counted | undefined | "aborted"> {
  const { entry, window, reservation, pending, signal } = options;
  const provider = entry.provider;
  if (signal.aborted) return "aborted";
  const messages = requestHistory(view, state, pending);
  const estimate = estimateState(view, state, pending);
  const m = {
    tokens: estimate,
    window,
    reservation,
    threshold: view.threshold,
    estimate,
  };
  let onAbort = (): void => {};
  const aborted = new Promise<"aborted">((resolve) => {
    onAbort = () => resolve("aborted");
    signal.addEventListener("abort", onAbort, { once: true });
  });
  try {
    const counted = await Promise.race([
      Promise.resolve().then(() =>
        provider.estimateTokens?.({
          model: entry.model,
          system: view.system,
          messages,
          tools: view.tools,
        }, signal)
      ),
      aborted,
    ]);
    if (counted === "aborted" || signal.aborted) return "aborted";
    return typeof counted === "number" && Number.isFinite(counted) &&
        counted >= 0
      ? { ...m, tokens: Math.ceil(counted) }
      : m;
  } catch {
    return signal.aborted ? "aborted" : m;
  } finally {
    signal.removeEventListener("abort", onAbort);
  }
}

/**
 * What measuring the next request says the turn does before it sends:
 * send as it is (`recoverable` says whether an overflow may still start
 * a recovery), stop (the signal aborted while a provider counted), or
 * compact where the summariser runs (`tokensBefore`: the heuristic
 * estimate of the request, when it was measured).
 */
export type RequestCheck =
  | { kind: "send"; recoverable: boolean }
  | { kind: "aborted" }
  | CompactCheck;

/** A check that calls for a compaction, and where its summariser runs. */
export interface CompactCheck {
  /** Compact. */
  kind: "compact";
  /** The summariser's request bound. */
  bound: number;
  /** Whether a window is unknown (disclosed). */
  windowUnknown: boolean;
  /** The first attemptable entry (pass 1 is admitted on it first). */
  entry: PlanEntry;
  /** The heuristic estimate of the request (the compaction's before). */
  tokensBefore: number;
}

/**
 * The check before a request. Before the first, measure the actual next
 * request: when it triggers and the floor fits, compact; no bound, no
 * authoritative window, or a floor that does not fit sends the request
 * and forbids recovery. After an overflow (`recovery`), compact whenever
 * a bound can be set.
 *
 * @param view The next request's parts.
 * @param state The current state.
 * @param options The pending user text, the turn's signal (a provider's
 * count is raced with it), and whether an overflow is being recovered.
 * @returns What the turn does next.
 */
export async function checkRequest(
  view: WindowView,
  state: ContextState,
  options: { pending: string; signal: AbortSignal; recovery: boolean },
): Promise<RequestCheck> {
  const { pending } = options;
  const target = summaryTarget(view.plan, false);
  if (target === undefined) return { kind: "send", recoverable: false };
  if (!options.recovery) {
    const m = await measureRequest(view, state, options);
    if (m === "aborted") return { kind: "aborted" };
    if (m === undefined) return { kind: "send", recoverable: false };
    if (compactionTrigger(m) === undefined) {
      return { kind: "send", recoverable: true };
    }
    if (!floorFits(view, state, m, pending)) {
      return { kind: "send", recoverable: false };
    }
    return { kind: "compact", ...target, tokensBefore: m.estimate };
  }
  const tokensBefore = estimateState(view, state, pending);
  return { kind: "compact", ...target, tokensBefore };
}

/**
 * Whether the after-turn step compacts now: the measured next request
 * (no pending user) triggers.
 *
 * @param view The next request's parts.
 * @param state The state after the turn.
 * @param signal The turn's signal: a provider's count is raced with it.
 * @returns Where the summariser runs when it is due, else `undefined`
 * (also when the signal aborted while it was measured); a promise only
 * while a provider counts.
 */
export function afterTurnDue(
  view: WindowView,
  state: ContextState,
  signal: AbortSignal,
): CompactCheck | undefined | Promise<CompactCheck | undefined> {
  const target = summaryTarget(view.plan, false);
  if (target === undefined) return undefined;
  const due = (
    m: Counted | undefined | "aborted",
  ): CompactCheck | undefined =>
    typeof m === "object" && compactionTrigger(m) !== undefined
      ? { kind: "compact", ...target, tokensBefore: m.estimate }
      : undefined;
  const m = measureRequest(view, state, { signal });
  return m instanceof Promise ? m.then(due) : due(m);
}

/**
 * Whether the smallest request a compaction can leave (the latest
 * completed turn, a summary of the largest size, the pending user) plus
 * the output reservation fits the window: if not, compacting cannot help.
 *
 * @param view The next request's parts.
 * @param state The current state.
 * @param m The measurement of the next request.
 * @param pending The pending user text.
 * @returns `true` when the floor fits.
 */
export function floorFits(
  view: WindowView,
  state: ContextState,
  m: Measurement,
  pending: string,
): boolean {
  const latest = state.spans[state.spans.length - 1];
  const from = latest?.start ?? 0;
  const worstSummary = "x".repeat(COMPACTION_LIMITS.summaryMaxTokens * 4);
  const floor = estimateState(view, {
    messages: state.messages.slice(from),
    spans: rebaseSpans(state.spans, from),
    summary: worstSummary,
  }, pending);
  return floor + m.reservation <= m.window;
}
