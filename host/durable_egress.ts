/**
 * The egress barrier of an asynchronous store: each request a provider
 * streams first waits for the session's queued writes (the pending
 * journal row among them) and whatever else must be durable before it
 * leaves. When that fails, the request never leaves: the stream is one
 * non-retryable error chunk.
 *
 * @module
 */
import type { LlmProvider } from "../llm/provider.ts";
import type { StreamChunk } from "../llm/chunk.ts";

/** `provider.stream`, after `barrier`. */
async function* streamAfter(
  provider: LlmProvider,
  barrier: () => Promise<void>,
  args: Parameters<LlmProvider["stream"]>,
): AsyncGenerator<StreamChunk> {
  try {
    await barrier();
  } catch {
    yield {
      type: "error",
      error: {
        kind: "bad_request",
        retryable: false,
        provider: provider.id,
        message:
          "The session store failed to write; nothing was sent: resume the session to continue",
      },
    };
    return;
  }
  yield* provider.stream(...args);
}

/**
 * Wraps a provider resolver so that every stream awaits `barrier` first.
 *
 * @param resolve The session's provider resolver.
 * @param barrier Settles when the request may leave; rejects when not.
 * @returns The wrapping resolver (one wrapper per provider).
 */
export function afterWrites(
  resolve: (id: string) => LlmProvider | undefined,
  barrier: () => Promise<void>,
): (id: string) => LlmProvider | undefined {
  const wrapped = new WeakMap<LlmProvider, LlmProvider>();
  return (id) => {
    const provider = resolve(id);
    if (provider === undefined) return undefined;
    let out = wrapped.get(provider);
    if (out === undefined) {
      const stream = (...args: Parameters<LlmProvider["stream"]>) =>
        streamAfter(provider, barrier, args);
      out = new Proxy(provider, {
        get(t, k) {
          if (k === "stream") return stream;
          const v: unknown = Reflect.get(t, k);
          return typeof v === "function" ? v.bind(t) : v;
        },
      });
      wrapped.set(provider, out);
    }
    return out;
  };
}
