/**
 * `--record <cassette>`: every `stream()` call of a
 * session's real providers is captured as normalised chunks and written,
 * when the command ends, as a strict v1.1 cassette with one queue per
 * provider id and `expect` keys for the model and the last user text.
 * Replaying it with `--fixture` gives the same event signature offline.
 *
 * The cassette holds the conversation's text (user data) but never a key:
 * keys are not recorded, and every configured key (not only the
 * session's), any key a provider was called with, and any string shaped
 * like a provider key are replaced by `[redacted]` wherever they occur.
 *
 * @module
 */
import { dirname, resolve } from "node:path";
import type { StreamChunk } from "../../llm/chunk.ts";
import { makeLlmError } from "../../llm/errors.ts";
import type { LlmProvider, LlmRequest } from "../../llm/provider.ts";
import { err, ok, type Result } from "../../schema/result.ts";
import { writeFileAtomic } from "../io/atomic_write.ts";
import { type CliFault, fault } from "../fault.ts";
import { createSecretScreen, redactStrings } from "../../host/secrets.ts";

/** Longest `expect.lastUserIncludes` prefix, in UTF-16 units. */
const EXPECT_TEXT_MAX = 200;

/**
 * One recorded call, as a v1.1 `{chunks, expect}` entry.
 */
export interface RecordedCall {
  chunks: StreamChunk[];
  expect: { model: string; lastUserIncludes?: string };
}

/**
 * The v1.1 cassette a recording writes.
 */
export interface RecordedCassette {
  schema_version: "1.1";
  /** The agent's primary model (informational). */
  model: string;
  strict: true;
  /** One queue per provider id: the primary's first, then by first call. */
  providers: Record<string, { calls: RecordedCall[] }>;
}

/**
 * A recording in progress.
 */
export interface Recorder {
  /** The cassette file (absolute). */
  readonly path: string;
  /** The provider, its `stream()` calls captured under `id`. */
  wrap(id: string, provider: LlmProvider): LlmProvider;
  /** The cassette so far, keys scrubbed. */
  cassette(): RecordedCassette;
  /** Writes the cassette atomically (temporary file, then rename). */
  write(): Promise<Result<void, CliFault>>;
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
 * Starts a recording. The target is checked before the session: its
 * folder must exist and it must not be a folder (an existing file is
 * replaced at the end).
 *
 * @param path The `--record` path (relative to `cwd`).
 * @param options The effective cwd, the primary provider and model, and
 * every configured key.
 * @returns The recorder, or a fault: `not_found` (no such folder),
 * `usage` (the target is a folder).
 */
export async function openRecorder(
  path: string,
  options: {
    cwd: string;
    primaryProvider: string;
    model: string;
    secrets?: readonly string[];
  },
): Promise<Result<Recorder, CliFault>> {
  const file = resolve(options.cwd, path);
  try {
    if (!(await Deno.stat(dirname(file))).isDirectory) throw new Error();
  } catch {
    return err(fault(
      "not_found",
      `Cannot record: no such folder for --record: ${dirname(file)}`,
    ));
  }
  try {
    if ((await Deno.stat(file)).isDirectory) {
      return err(
        fault("usage", `Cannot record: --record names a folder: ${file}`),
      );
    }
  } catch {
    // A new file.
  }
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
  return ok({
    path: file,
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
    cassette,
    async write(): Promise<Result<void, CliFault>> {
      const text = `${JSON.stringify(cassette(), null, 2)}\n`;
      const r = await writeFileAtomic(file, text);
      if (r.ok) return ok(undefined);
      const why = r.error.cause instanceof Error
        ? r.error.cause.name
        : "unknown error";
      return err(fault("internal", `Cannot write cassette ${file}: ${why}`));
    },
  });
}
