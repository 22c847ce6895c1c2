/**
 * Runs the compaction primitive: up to four summariser
 * passes through the session's plan, the moment (`session:compacting` →
 * observer → egress → exactly one close), and the all-or-nothing install.
 * The policy it follows lives in `compaction.ts`.
 *
 * @module
 */
import { createChain } from "../llm/chain.ts";
import type { LlmRequest } from "../llm/provider.ts";
import type { CompactionReason, SessionError } from "../schema/event.ts";
import {
  COMPACTION_LIMITS,
  COMPACTION_SYSTEM_PROMPT,
  planPass,
  splitForCompaction,
} from "./compaction.ts";
import { attemptableEntries } from "./measure.ts";
import {
  type ContextState,
  measureState,
  type WindowEnv,
} from "./window_env.ts";
import { sessionError, sessionErrorFromLlm } from "./turn_errors.ts";

/**
 * One run of the primitive: why, the summariser's request bound, whether
 * the window is unknown (disclosed on `session:compacting`), and the
 * pending user of the turn (pre-send, recovery).
 */
export interface CompactionRun {
  /** Why it runs. */
  reason: CompactionReason;
  /** Largest summariser request estimate. */
  bound: number;
  /** Disclose an unknown window on `session:compacting`. */
  windowUnknown: boolean;
  /** The pending user of the turn (pre-send, recovery). */
  pending?: string;
}

/**
 * How a compaction ended. `momentOpened` says whether `session:compacting`
 * was emitted (and so closed by `session:compaction_failed`).
 */
export type CompactionOutcome =
  | {
    kind: "compacted";
    summary: string;
    keptMessageCount: number;
    keptTurnCount: number;
    tokensBefore: number;
    tokensAfter: number;
    usage: { input: number; output: number };
  }
  | { kind: "nothing_to_compact" }
  | { kind: "budget_refused"; error: SessionError; momentOpened: boolean }
  | {
    kind: "failed";
    error: SessionError;
    momentOpened: boolean;
    observer?: true;
  }
  | { kind: "aborted"; momentOpened: boolean }
  | { kind: "cancelled" };

type PassResult =
  | { kind: "text"; text: string; usage: { input: number; output: number } }
  | { kind: "refused"; error: SessionError }
  | { kind: "failed"; error: SessionError }
  | { kind: "aborted" };

const ABORTED: unique symbol = Symbol("aborted");

function untilAborted(signal: AbortSignal): Promise<typeof ABORTED> {
  return new Promise((resolve) => {
    if (signal.aborted) resolve(ABORTED);
    else {signal.addEventListener("abort", () => resolve(ABORTED), {
        once: true,
      });}
  });
}

async function runPass(
  chain: ReturnType<typeof createChain>,
  request: LlmRequest,
  signal: AbortSignal,
): Promise<PassResult> {
  let text = "";
  for await (const ev of chain.stream(request, signal)) {
    if (signal.aborted) return { kind: "aborted" };
    if (ev.type === "attempt_start") text = "";
    else if (ev.type === "chunk" && ev.chunk.type === "text_delta") {
      text += ev.chunk.text;
    } else if (ev.type === "done") {
      if (ev.contextExceeded === true || ev.stopReason === "content_filter") {
        return {
          kind: "failed",
          error: sessionError(
            "internal",
            "The summariser did not return a summary",
          ),
        };
      }
      return {
        kind: "text",
        text,
        usage: { input: ev.usage.inputTokens, output: ev.usage.outputTokens },
      };
    } else if (ev.type === "failed") {
      if (signal.aborted) return { kind: "aborted" };
      if (ev.refusal !== undefined) {
        return { kind: "refused", error: ev.refusal };
      }
      if (ev.error === undefined || ev.error.kind === "cancelled") {
        return { kind: "failed", error: sessionError("internal") };
      }
      return {
        kind: "failed",
        error: sessionErrorFromLlm(ev.error, {
          model: undefined,
          toolsRan: false,
        }),
      };
    }
  }
  return signal.aborted
    ? { kind: "aborted" }
    : { kind: "failed", error: sessionError("internal") };
}

/**
 * Runs one compaction. Nothing foldable ⇒ `nothing_to_compact` (no
 * events). Pass 1 is admitted before the moment opens; a refusal there
 * returns with no events. Then `session:compacting`, the awaited observer,
 * and the passes; each opened moment ends with exactly one
 * `session:compacted` or `session:compaction_failed` — or nothing, when
 * the session was cancelled (its `session:cancelled` closes it). The state
 * is installed only when every pass succeeded.
 *
 * @param env The session's environment (state, plan, sink, admission).
 * @param run Why, the request bound, disclosure and the pending user.
 * @returns The outcome.
 */
export async function runCompaction(
  env: WindowEnv,
  run: CompactionRun,
): Promise<CompactionOutcome> {
  const state = env.read();
  const deps = env.deps;
  const measure = (s: ContextState): number =>
    measureState(env, s, run.pending);
  const split = splitForCompaction(state.messages, state.spans);
  if (split === undefined) return { kind: "nothing_to_compact" };
  const { reason } = run;
  const signal = env.signal;
  let opened = false;
  const close = (error: SessionError): void => {
    if (opened) {
      env.emit({ type: "session:compaction_failed", reason, error });
    }
  };
  const failed = (error: SessionError): CompactionOutcome => {
    close(error);
    return { kind: "failed", error, momentOpened: opened };
  };
  const stop = (): CompactionOutcome => {
    if (env.isCancelled()) return { kind: "cancelled" };
    close(sessionError("cancelled", "The compaction was aborted"));
    return { kind: "aborted", momentOpened: opened };
  };
  if (signal.aborted || env.isCancelled()) return stop();

  const tokensBefore = measure(state);
  let admitted = false;
  const chain = createChain({
    plan: env.plan,
    keyFor: (id) => deps.keyFor(id),
    sleep: (ms, s) => deps.sleep(ms, s),
    now: () => deps.clock.now(),
    admit: (entry, request) => {
      if (admitted) {
        admitted = false;
        return { allow: true };
      }
      return env.admit(entry, request);
    },
    onAttempt: (report) => env.onAttempt(report),
  });
  let prior = state.summary === "" ? undefined : state.summary;
  let remaining = split.foldable;
  const usage = { input: 0, output: 0 };
  const unfittable = "The running summary leaves no room to fold the history";

  for (let pass = 1; pass <= COMPACTION_LIMITS.maxPasses; pass++) {
    const plan = planPass({
      system: COMPACTION_SYSTEM_PROMPT,
      ...(prior === undefined ? {} : { prior }),
      remaining,
      maxTokens: run.bound,
    });
    if (plan === undefined) return failed(sessionError("internal", unfittable));
    const request: LlmRequest = {
      model: "",
      system: COMPACTION_SYSTEM_PROMPT,
      messages: [{
        role: "user",
        content: [{ type: "text", text: plan.text }],
      }],
      maxTokens: COMPACTION_LIMITS.summaryMaxTokens,
    };
    if (pass === 1) {
      const entry = attemptableEntries(env.plan, false)[0];
      if (entry !== undefined) {
        const meta = { provider: entry.provider.id, model: entry.model };
        const a = env.admit(meta, { ...request, model: entry.model });
        if (!a.allow) {
          return a.error.code === "budget_exceeded"
            ? { kind: "budget_refused", error: a.error, momentOpened: false }
            : failed(a.error);
        }
        admitted = true;
      }
      opened = true;
      env.emit({
        type: "session:compacting",
        reason,
        ...(run.windowUnknown ? { windowUnknown: true } : {}),
      });
      if (env.isCancelled()) return stop();
      const onStart = deps.onCompactionStart;
      if (onStart !== undefined) {
        const observed = Promise.resolve().then(() =>
          onStart.call(deps, {
            reason,
            windowUnknown: run.windowUnknown,
            signal,
          })
        ).then(() => true, () => false);
        const r = await Promise.race([observed, untilAborted(signal)]);
        if (r === ABORTED || signal.aborted || env.isCancelled()) {
          return stop();
        }
        if (!r) {
          const error = sessionError(
            "internal",
            "The compaction observer failed",
          );
          close(error);
          return { kind: "failed", error, momentOpened: true, observer: true };
        }
      }
    }
    const r = await runPass(chain, request, signal);
    if (env.isCancelled()) return { kind: "cancelled" };
    if (r.kind === "aborted" || signal.aborted) return stop();
    if (r.kind === "refused") {
      if (r.error.code !== "budget_exceeded") return failed(r.error);
      close(r.error);
      return { kind: "budget_refused", error: r.error, momentOpened: true };
    }
    if (r.kind === "failed") return failed(r.error);
    usage.input += r.usage.input;
    usage.output += r.usage.output;
    const summary = r.text.trim();
    if (summary === "") {
      return failed(
        sessionError("internal", "The summariser returned an empty summary"),
      );
    }
    prior = summary;
    remaining = remaining.slice(plan.consumed);
    if (remaining.length === 0) break;
  }
  if (remaining.length > 0 || prior === undefined) {
    return failed(sessionError(
      "internal",
      `The history could not be folded within ${COMPACTION_LIMITS.maxPasses} passes`,
    ));
  }
  const next: ContextState = {
    messages: split.kept,
    spans: split.keptSpans,
    summary: prior,
  };
  const tokensAfter = measure(next);
  env.install(next);
  const keptMessageCount = split.kept.length +
    (run.pending === undefined ? 0 : 1);
  env.emit({
    type: "session:compacted",
    reason,
    summary: prior,
    keptMessageCount,
    keptTurnCount: split.keptTurnCount,
    tokensBefore,
    tokensAfter,
    tokensUsed: { ...usage },
  });
  return {
    kind: "compacted",
    summary: prior,
    keptMessageCount,
    keptTurnCount: split.keptTurnCount,
    tokensBefore,
    tokensAfter,
    usage,
  };
}
