/**
 * Recording: every `stream()` call of a session's real providers is
 * captured as normalised chunks, and the recording is a strict v1.1
 * cassette with one queue per provider id and `expect` keys for the model
 * and the last user text. Replaying it gives the same event signature
 * offline.
 *
 * The cassette holds the conversation's text (user data) but never a key:
 * keys are not recorded, and every configured key, any key a provider was
 * called with, and any string shaped like a provider key are replaced by
 * `[redacted]` wherever they occur.
 *
 * @module
 */
import type { StreamChunk } from "./chunk.ts";
import { makeLlmError } from "./errors.ts";
import type { LlmProvider, LlmRequest } from "./provider.ts";
import { createSecretScreen, redactStrings } from "./secret_screen.ts";

/** Longest `expect.lastUserIncludes` prefix, in UTF-16 units. */
const EXPECT_TEXT_MAX = 200;

/**
 * One recorded call, as a v1.1 `{chunks, expect}` entry.
 */
interface RecordedCall {
  /** The call's chunks, in order, ending with its terminal chunk. */
  chunks: StreamChunk[];
  /** What a strict replay checks the request against. */
  expect: { model: string; lastUserIncludes?: string };
}

/**
 * The v1.1 cassette a recording writes.
 */
interface RecordedCassette {
  /** The cassette format. */
  schema_version: "1.1";
  /** The agent's primary model (informational). */
  model: string;
  /** A replay checks each request against its `expect`. */
  strict: true;
  /** One queue per provider id: the primary's first, then by first call. */
  providers: Record<string, { calls: RecordedCall[] }>;
}

/**
 * A recording in progress: wrap each real provider, then take the
 * cassette (keys scrubbed) when the session ends.
 */
export interface Recorder {
  /** The provider, its `stream()` calls captured under `id`. */
  wrap(id: string, provider: LlmProvider): LlmProvider;
  /**
   * The cassette so far, keys scrubbed, as the text of a cassette file
   * (indented JSON and a final newline): `loadCassette` reads it back.
   */
  cassette(): string;
  /** The number of calls recorded so far. */
  calls(): number;
}

/**
 * The text `expect.lastUserIncludes` pins: the request's last user
 * message (text parts joined by `\n`, as the replay reads it), cut to at
 * most 200 UTF-16 units without splitting a surrogate pair.
 *
 * @param req The request.
 * @returns The prefix, or `undefined` when there is no user text.
 */
export function lastUserPrefix(req: LlmRequest): string | undefined {
  for (let i = req.messages.length - 1; i >= 0; i--) {
    const m = req.messages[i];
    if (m?.role !== "user") continue;
    const text = m.content.map((p) => p.type === "text" ? p.text : "")
      .join("\n");
    if (text === "") return undefined;
    if (text.length <= EXPECT_TEXT_MAX) return text;
    const cut = text.slice(0, EXPECT_TEXT_MAX);
    const last = cut.charCodeAt(cut.length - 1);
    return last >= 0xd800 && last <= 0xdbff ? cut.slice(0, -1) : cut;
  }
  return undefined;
}

/**
 * The call as a loadable cassette entry: a stream cut before its terminal
 * `stop`/`error` chunk (ended, thrown or abandoned) is written with a
 * terminal `transport` error chunk, as the replay would report it.
 */
function terminated(id: string, call: RecordedCall): RecordedCall {
  const last = call.chunks.at(-1);
  if (last?.type === "stop" || last?.type === "error") return call;
  const cut = makeLlmError(
    "transport",
    id,
    "Stream ended before a terminal chunk: truncated",
  );
  return { ...call, chunks: [...call.chunks, { type: "error", error: cut }] };
}

async function* capture(
  source: AsyncIterable<StreamChunk>,
  into: StreamChunk[],
): AsyncGenerator<StreamChunk> {
  for await (const chunk of source) {
    into.push(structuredClone(chunk));
    yield chunk;
  }
}

/**
 * Starts a recording. Pass it to `denoRuntime({ recorder })`, or wrap
 * providers yourself; write `JSON.stringify(recorder.cassette())` when the
 * session ends, and replay it with `loadCassette`.
 *
 * @param options The primary provider and model, and the configured keys.
 * @returns The recorder.
 *
 * @example Record a scripted call
 * ```ts
 * import { createRecorder, createScriptedProvider } from "@relavium/session/llm";
 * import assert from "node:assert/strict";
 * const recorder = createRecorder({ primaryProvider: "openai", model: "gpt-5.4-mini" });
 * const provider = recorder.wrap("openai", createScriptedProvider({ id: "openai", script: [[
 *   { type: "text_delta", text: "hi" }, { type: "stop", stopReason: "stop", usage: { inputTokens: 1, outputTokens: 1 } },
 * ]] }));
 * const req = { model: "gpt-5.4-mini", messages: [{ role: "user" as const, content: [{ type: "text" as const, text: "hello" }] }], signal: new AbortController().signal };
 * for await (const _ of provider.stream(req, "")) continue;
 * assert.equal(recorder.calls(), 1);
 * const cassette = JSON.parse(recorder.cassette());
 * assert.equal(cassette.providers.openai.calls[0].expect.lastUserIncludes, "hello");
 * ```
 */
export function createRecorder(options: {
  /** The agent's primary provider id (its queue comes first). */
  primaryProvider: string;
  /** The agent's primary model (informational). */
  model: string;
  /** Every configured key: scrubbed wherever it occurs. */
  secrets?: readonly string[];
}): Recorder {
  const queues = new Map<string, RecordedCall[]>([[
    options.primaryProvider,
    [],
  ]]);
  const keys = new Set<string>(options.secrets);
  const queue = (id: string): RecordedCall[] => {
    const known = queues.get(id);
    if (known !== undefined) return known;
    const made: RecordedCall[] = [];
    queues.set(id, made);
    return made;
  };
  function cassette(): RecordedCassette {
    const providers: RecordedCassette["providers"] = {};
    for (const [id, calls] of queues) {
      providers[id] = { calls: calls.map((c) => terminated(id, c)) };
    }
    const raw: RecordedCassette = {
      schema_version: "1.1",
      model: options.model,
      strict: true,
      providers,
    };
    return redactStrings(raw, createSecretScreen([...keys]).redact);
  }
  return {
    wrap(id: string, provider: LlmProvider): LlmProvider {
      const wrapped: LlmProvider = {
        id: provider.id,
        kind: provider.kind,
        customEndpoint: provider.customEndpoint,
        supports: provider.supports,
        stream(req: LlmRequest, key: string): AsyncIterable<StreamChunk> {
          if (key !== "") keys.add(key);
          const text = lastUserPrefix(req);
          const call: RecordedCall = {
            chunks: [],
            expect: {
              model: req.model,
              ...(text === undefined ? {} : { lastUserIncludes: text }),
            },
          };
          queue(id).push(call);
          return capture(provider.stream(req, key), call.chunks);
        },
      };
      if (provider.contextLimit !== undefined) {
        const limit = provider.contextLimit.bind(provider);
        wrapped.contextLimit = (model) => limit(model);
      }
      if (provider.managesOwnContext !== undefined) {
        const manages = provider.managesOwnContext.bind(provider);
        wrapped.managesOwnContext = () => manages();
      }
      return wrapped;
    },
    cassette: () => `${JSON.stringify(cassette(), null, 2)}\n`,
    calls: () => [...queues.values()].reduce((n, q) => n + q.length, 0),
  };
}
