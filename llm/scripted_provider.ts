/**
 * An in-memory provider for tests and examples: replays a script, one entry
 * per `stream()` call, and records what it was asked.
 *
 * @module
 */
import type { StreamChunk } from "./chunk.ts";
import type { LlmProvider, LlmRequest, ProviderSupports } from "./provider.ts";
import { makeLlmError } from "./errors.ts";

/**
 * Options of {@linkcode createScriptedProvider}.
 */
export interface ScriptedProviderOptions {
  /** Provider id; default `"scripted"`. */
  id?: string;
  /** Protocol family; default `"openai-compatible"`. */
  kind?: LlmProvider["kind"];
  /** The N-th entry answers the N-th `stream()` call. */
  script: readonly (
    | readonly StreamChunk[]
    | ((request: LlmRequest) => readonly StreamChunk[])
  )[];
  /** Capability overrides; default tools and streaming on, the rest off. */
  supports?: Partial<ProviderSupports>;
  /** Context window reported for every model; default unknown. */
  contextWindow?: number;
}

/**
 * A scripted provider with its recordings.
 */
export interface ScriptedProvider extends LlmProvider {
  /** Deep copies of every request received, in order (signal omitted). */
  readonly requests: readonly LlmRequest[];
  /** The key passed with each call, in order. */
  readonly keys: readonly string[];
  /** Number of `stream()` calls so far. */
  readonly calls: number;
}

function copyRequest(req: LlmRequest): LlmRequest {
  const { signal: _signal, ...rest } = req;
  return structuredClone(rest);
}

/**
 * What the package's in-memory providers (scripted, replayed) declare:
 * tools and streaming, nothing else.
 */
export const FAKE_SUPPORTS: Readonly<ProviderSupports> = Object.freeze({
  tools: true,
  streaming: true,
  parallelToolCalls: false,
  reasoning: false,
  promptCache: false,
});

/**
 * Creates a provider that replays the N-th script entry on the N-th
 * `stream()` call, records every request and key, stops yielding when the
 * request's signal aborts, and answers an extra call with an `unknown`
 * error chunk ("unexpected stream call #N (only M scripted)").
 *
 * @param options Script, id, kind, capabilities, context window.
 * @returns The provider.
 *
 * @example Replay and inspect
 * ```ts
 * import { createScriptedProvider } from "@relavium/session/llm";
 * import assert from "node:assert/strict";
 * const p = createScriptedProvider({ script: [[{ type: "stop", stopReason: "stop", usage: { inputTokens: 1, outputTokens: 0 } }]] });
 * const chunks = [];
 * for await (const c of p.stream({ model: "m", messages: [] }, "key")) chunks.push(c);
 * assert.equal(chunks.length, 1);
 * assert.equal(p.requests[0]?.model, "m");
 * assert.deepEqual(p.keys, ["key"]);
 * for await (const c of p.stream({ model: "m", messages: [] }, "key")) chunks.push(c);
 * assert.equal(chunks[1]?.type, "error");
 * ```
 */
export function createScriptedProvider(
  options: ScriptedProviderOptions,
): ScriptedProvider {
  const id = options.id ?? "scripted";
  const requests: LlmRequest[] = [];
  const keys: string[] = [];
  const supports: ProviderSupports = {
    ...FAKE_SUPPORTS,
    ...options.supports,
  };
  const script = [...options.script];
  async function* replay(
    chunks: readonly StreamChunk[],
    signal: AbortSignal | undefined,
  ): AsyncGenerator<StreamChunk> {
    for (const chunk of chunks) {
      if (signal?.aborted === true) return;
      yield structuredClone(chunk);
    }
  }
  return {
    id,
    kind: options.kind ?? "openai-compatible",
    customEndpoint: false,
    supports,
    get requests(): readonly LlmRequest[] {
      return requests;
    },
    get keys(): readonly string[] {
      return keys;
    },
    get calls(): number {
      return requests.length;
    },
    stream(req: LlmRequest, key: string): AsyncIterable<StreamChunk> {
      const copy = copyRequest(req);
      requests.push(copy);
      keys.push(key);
      const n = requests.length;
      const entry = script[n - 1];
      if (entry === undefined) {
        const message =
          `unexpected stream call #${n} (only ${script.length} scripted)`;
        return replay([{
          type: "error",
          error: makeLlmError("unknown", id, message),
        }], req.signal);
      }
      const chunks = typeof entry === "function"
        ? entry(structuredClone(copy))
        : entry;
      return replay(chunks, req.signal);
    },
    contextLimit(_model: string): number | undefined {
      return options.contextWindow;
    },
  };
}
