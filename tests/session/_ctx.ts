/** Fakes for context-management tests: a provider that declares its window
 * and answers turns and summariser passes from separate scripts. */
import assert from "node:assert/strict";
import type { StreamChunk } from "../../llm/chunk.ts";
import type { ModelCatalog, ModelInfo } from "../../llm/catalog.ts";
import { estimateTokens } from "../../llm/estimate.ts";
import type { LlmProvider, LlmRequest } from "../../llm/provider.ts";
import type { SessionEvent } from "../../schema/event.ts";
import { COMPACTION_SYSTEM_PROMPT } from "../../session/window/compaction.ts";
import { failure, type Harness, harness, reply } from "./_harness.ts";

/** One scripted answer: chunks, or a promise of them (to hang a call). */
export type Answer =
  | readonly StreamChunk[]
  | ((req: LlmRequest, signal: AbortSignal | undefined) =>
    | readonly StreamChunk[]
    | Promise<readonly StreamChunk[]>);

export interface RoutedProvider extends LlmProvider {
  /** Every request, in order (signal omitted). */
  readonly all: LlmRequest[];
  /** Main-turn requests. */
  readonly turns: LlmRequest[];
  /** Summariser requests. */
  readonly summaries: LlmRequest[];
  /** Call log entries: "turn" | "summary". */
  readonly log: string[];
}

/** A summary reply: a text reply with a summariser's usage by default. */
export function summaryReply(
  text: string,
  input = 100,
  output = 20,
): StreamChunk[] {
  return reply(text, input, output);
}

/** Yields to the event loop's microtasks until `cond()` or a bound. */
export async function until(cond: () => boolean): Promise<void> {
  for (let i = 0; i < 10_000 && !cond(); i++) await Promise.resolve();
  assert.ok(cond(), "condition never became true");
}

/**
 * Waits until the first summariser call is in flight, then ends it the
 * way a person would (`abort` = Esc, `cancel` = Ctrl-C), and awaits the
 * turn.
 */
export async function interruptSummary(
  p: RoutedProvider,
  h: Harness,
  turn: Promise<unknown>,
  how: "abort" | "cancel",
): Promise<void> {
  await until(() => p.summaries.length === 1);
  h.session[how]();
  await turn;
}

/** What an aborted provider call reports. */
export const CANCELLED: StreamChunk = failure({
  kind: "cancelled",
  message: "aborted",
})[0] as StreamChunk;

/** The fixed fields of a fake `openai` provider (no stream). */
export function fakeProvider(
  parallelToolCalls = false,
): Omit<LlmProvider, "stream"> {
  return {
    id: "openai",
    kind: "openai-compatible",
    customEndpoint: false,
    supports: {
      tools: true,
      streaming: true,
      parallelToolCalls,
      reasoning: false,
      promptCache: false,
    },
  };
}

/** A provider error chunk list. */
export function providerError(
  kind: "context_overflow" | "bad_request" | "overloaded",
  code?: string,
): StreamChunk[] {
  return failure({
    kind,
    retryable: kind === "overloaded",
    message: "the provider's own words; key sk-ant-api03-0123456789abcdefghij",
    ...(code === undefined ? {} : { code }),
  });
}

/** Waits until the signal aborts (a hung call), then reports cancellation. */
export function hang(
  _req: LlmRequest,
  signal: AbortSignal | undefined,
): Promise<StreamChunk[]> {
  return new Promise((resolve) => {
    const done = () => resolve([CANCELLED]);
    if (signal?.aborted) done();
    else signal?.addEventListener("abort", done, { once: true });
  });
}

/**
 * A provider routing by system prompt: summariser requests (the fixed
 * compaction prompt) take the next `summaries` answer, others the next
 * `turns` answer; an exhausted script answers with a default.
 */
export function routedProvider(options: {
  id?: string;
  window?: number | undefined;
  customEndpoint?: boolean;
  managesOwnContext?: boolean;
  turns?: Answer[];
  summaries?: Answer[];
  defaultTurn?: (req: LlmRequest, n: number) => StreamChunk[];
  defaultSummary?: (req: LlmRequest, n: number) => StreamChunk[];
}): RoutedProvider {
  const all: LlmRequest[] = [];
  const turns: LlmRequest[] = [];
  const summaries: LlmRequest[] = [];
  const log: string[] = [];
  const turnScript = [...(options.turns ?? [])];
  const summaryScript = [...(options.summaries ?? [])];
  const provider: RoutedProvider = {
    ...fakeProvider(),
    id: options.id ?? "openai",
    customEndpoint: options.customEndpoint ?? false,
    all,
    turns,
    summaries,
    log,
    async *stream(req: LlmRequest): AsyncIterable<StreamChunk> {
      const { signal, ...rest } = req;
      const copy = structuredClone(rest);
      all.push(copy);
      const isSummary = req.system === COMPACTION_SYSTEM_PROMPT;
      log.push(isSummary ? "summary" : "turn");
      let answer: Answer | undefined;
      if (isSummary) {
        summaries.push(copy);
        answer = summaryScript.shift() ??
          options.defaultSummary?.(copy, summaries.length) ??
          summaryReply(`summary ${summaries.length}`);
      } else {
        turns.push(copy);
        answer = turnScript.shift() ??
          options.defaultTurn?.(copy, turns.length) ??
          summaryReply(`reply ${turns.length}`, 10, 2);
      }
      const chunks = typeof answer === "function"
        ? await answer(copy, signal)
        : answer;
      for (const c of chunks) {
        if (signal?.aborted) return;
        yield structuredClone(c);
      }
    },
    contextLimit(): number | undefined {
      return options.window;
    },
    ...(options.managesOwnContext === true
      ? { managesOwnContext: () => true }
      : {}),
  };
  return provider;
}

/** A started harness over a routed provider built from `options`. */
export function routedHarness(
  options: Parameters<typeof routedProvider>[0],
  rest: Omit<Parameters<typeof harness>[0], "script" | "provider"> = {},
): { p: RoutedProvider; h: Harness } {
  const p = routedProvider(options);
  return { p, h: harness({ script: [], provider: p, ...rest }) };
}

/** Estimated tokens of a recorded request. */
export function estimateOf(req: LlmRequest | undefined): number {
  if (req === undefined) return 0;
  return estimateTokens({
    system: req.system ?? "",
    messages: req.messages,
    ...(req.tools === undefined ? {} : { tools: req.tools }),
  });
}

/** Text of a request message. */
export function textOfMessage(req: LlmRequest | undefined, i: number): string {
  const m = req?.messages.at(i);
  return (m?.content ?? []).map((p) => (p.type === "text" ? p.text : "")).join(
    "",
  );
}

/**
 * The last event is the terminal of a turn that ended `stop` having used
 * `input` and `output` tokens of gpt-5.4-mini; returns it.
 */
export function stoppedWith(
  events: readonly SessionEvent[],
  input: number,
  output: number,
): TurnCompleted {
  const done = terminal(events);
  assert.equal(done.stopReason, "stop");
  assert.deepEqual(done.tokensUsed, { input, output, model: "gpt-5.4-mini" });
  return done;
}

/** A turn's terminal event. */
export type TurnCompleted = Extract<
  SessionEvent,
  { type: "session:turn_completed" }
>;

/** A compaction that failed inside a turn, which then ended. */
export const FAILED_IN_TURN: readonly string[] = [
  "session:turn_started",
  "session:compacting",
  "session:compaction_failed",
  "session:turn_completed",
];

/** The last event, asserted to be the turn's terminal. */
export function terminal(events: readonly SessionEvent[]): TurnCompleted {
  const e = events.at(-1);
  assert.ok(e?.type === "session:turn_completed", "ends with a terminal");
  return e;
}

/** Event types, without streaming noise. */
export function kinds(events: SessionEvent[], from = 0): string[] {
  return events.slice(from).map((e) => e.type).filter((t) =>
    t !== "agent:token"
  );
}

/** A catalog pricing gpt-5.4-mini at `input`/`output` µ¢ per million tokens. */
export function pricedCatalog(
  input: number,
  output: number,
  maxOutputTokens = 128_000,
): ModelCatalog {
  const info: ModelInfo = {
    provider: "openai",
    id: "gpt-5.4-mini",
    contextWindowTokens: 10_000,
    maxOutputTokens,
    inputPerMtokMicrocents: input,
    outputPerMtokMicrocents: output,
    cachedInputPerMtokMicrocents: 0,
  };
  return {
    lookup: (m: string) => (m === "gpt-5.4-mini" ? { ...info } : undefined),
  };
}

/** `n` characters of filler that start with `tag`. */
export function filler(tag: string, n: number): string {
  return (tag + " " + "x".repeat(Math.max(0, n))).slice(
    0,
    Math.max(n, tag.length),
  );
}
