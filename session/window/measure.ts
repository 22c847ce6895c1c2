/**
 * Measured triggers: which window is
 * authoritative, the output reservation, the estimate of the next
 * request, and whether it calls for a compaction. Pure.
 *
 * @module
 */
import type { PlanEntry } from "../../llm/chain.ts";
import type { ModelCatalog } from "../../llm/catalog.ts";
import type { LlmProvider } from "../../llm/provider.ts";
import { COMPACTION_LIMITS } from "./compaction.ts";
import { estimateProjection } from "./projection.ts";
import { rebaseSpans } from "./spans.ts";
import type { ContextState, WindowView } from "./state.ts";

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

/**
 * Estimated input tokens of the request a state projects to.
 *
 * @param view The next request's system prompt, memory policy and tools.
 * @param state Transcript, spans and summary.
 * @param pending The pending user text, if any.
 * @returns The estimate.
 */
export function measureState(
  view: Pick<WindowView, "agent" | "system" | "tools">,
  state: ContextState,
  pending?: string,
): number {
  const memory = view.agent.memory;
  return estimateProjection({
    system: view.system,
    ...(memory === undefined ? {} : { memory }),
    messages: state.messages,
    spans: state.spans,
    ...(state.summary === undefined ? {} : { summary: state.summary }),
    ...(pending === undefined ? {} : { pending }),
    tools: view.tools,
  });
}

/**
 * Measures the next request against the first attemptable entry.
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
  const entry = attemptableEntries(view.plan, view.tools.length > 0)[0];
  if (entry === undefined) return undefined;
  const window = authoritativeWindow(entry.provider, entry.model);
  if (window === undefined) return undefined;
  return {
    tokens: measureState(view, state, pending),
    window,
    reservation: reservationOf(
      view.deps,
      { kind: entry.provider.kind, model: entry.model },
      view.agent.max_tokens,
    ),
    threshold: view.threshold,
  };
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
  const floor = measureState(view, {
    messages: state.messages.slice(from),
    spans: rebaseSpans(state.spans, from),
    summary: worstSummary,
  }, pending);
  return floor + m.reservation <= m.window;
}
