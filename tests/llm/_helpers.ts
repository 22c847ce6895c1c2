/** Shared fakes for the llm tests: recorded sleeps, a settable clock, chunk builders. */
import type { ChainEvent } from "../../llm/chain_event.ts";
import type {
  LlmError,
  LlmErrorKind,
  LlmRequest,
  StreamChunk,
} from "../../llm/mod.ts";
import { makeLlmError } from "../../llm/mod.ts";

/** A sleep that records each requested wait and resolves at once. */
export function recordingSleep(): {
  waits: number[];
  sleep(ms: number, signal: AbortSignal): Promise<void>;
} {
  const waits: number[] = [];
  return {
    waits,
    sleep(ms: number, _signal: AbortSignal): Promise<void> {
      waits.push(ms);
      return Promise.resolve();
    },
  };
}

/** A clock the test moves by hand. */
export function manualClock(start = 1_000_000): {
  now(): number;
  advance(ms: number): void;
} {
  let t = start;
  return {
    now: () => t,
    advance(ms: number): void {
      t += ms;
    },
  };
}

/** Collects every event of a chain call. */
export async function collect(
  events: AsyncIterable<ChainEvent>,
): Promise<ChainEvent[]> {
  const out: ChainEvent[] = [];
  for await (const e of events) out.push(e);
  return out;
}

/** `text_delta` + `stop`. */
export function textReply(text: string, input = 10, output = 2): StreamChunk[] {
  return [
    { type: "text_delta", text },
    {
      type: "stop",
      stopReason: "stop",
      usage: { inputTokens: input, outputTokens: output },
    },
  ];
}

/** One `error` chunk of a kind. */
export function errorReply(
  kind: LlmErrorKind,
  provider = "scripted",
  extra: { retryAfterMs?: number } = {},
): StreamChunk[] {
  const error: LlmError = makeLlmError(
    kind,
    provider,
    `${kind} happened`,
    extra,
  );
  return [{ type: "error", error }];
}

/** A user-text request. */
export function userRequest(
  text = "hi",
  extra: Partial<LlmRequest> = {},
): LlmRequest {
  return {
    model: "",
    messages: [{ role: "user", content: [{ type: "text", text }] }],
    ...extra,
  };
}

/** Event types, for compact assertions. */
export function types(events: readonly ChainEvent[]): string[] {
  return events.map((e) => e.type);
}
