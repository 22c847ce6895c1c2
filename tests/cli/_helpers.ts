/** Shared helpers of the CLI tests: temp dirs, in-process runs of `main`, strict NDJSON parsing. */
import assert from "node:assert/strict";
import { createBufferedIo } from "../../cli/io/io.ts";
import type { FetchFn } from "../../llm/http.ts";
import { main } from "../../cli/main.ts";
import { resolve } from "node:path";
import {
  type ConfigRequest,
  loadCliConfig,
  locateConfig,
} from "../../cli/config/config.ts";
import { recordTrust, sha256Hex } from "../../cli/config/trust_store.ts";
import { parseSessionEvent, type SessionEvent } from "../../schema/event.ts";
import { callChunks, cassette, textChunks } from "./_kit/cassette.ts";

/** A temp dir removed on `await using` exit. */
export interface TempDir extends AsyncDisposable {
  path: string;
}

/** Creates a temp dir (removed recursively when disposed). */
export async function tempDir(): Promise<TempDir> {
  const path = await Deno.realPath(
    await Deno.makeTempDir({ prefix: "relavium-cli-" }),
  );
  return {
    path,
    async [Symbol.asyncDispose](): Promise<void> {
      await Deno.remove(path, { recursive: true });
    },
  };
}

/** Options of {@linkcode runCli}. */
export interface RunOptions {
  env?: Record<string, string>;
  stdin?: string | ReadableStream<Uint8Array>;
  cwd?: string;
  tty?: boolean;
  /** The provider transport (default: the buffered io's, which refuses). */
  fetch?: FetchFn;
  /** DNS answers for custom provider hosts (default: not checked). */
  resolveDns?: (name: string) => Promise<string[]>;
  /**
   * Trust the project files found from the working directory before the
   * run, as `relavium trust` would (default `true`; `false` runs them as a
   * freshly cloned, untrusted repository).
   */
  trust?: boolean;
}

/**
 * Records trust in the `workspace.toml` / `project.toml` found from `cwd`
 * in the Relavium home of `env` (`RELAVIUM_HOME`, else `$HOME/.relavium`).
 *
 * @returns A function undoing what it created (the trust file, and the
 * home when it did not exist and is left empty).
 */
export async function trustProjectFiles(
  cwd: string,
  env: Record<string, string> | ((name: string) => string | undefined),
): Promise<() => Promise<void>> {
  const none = (): Promise<void> => Promise.resolve();
  const located = await locateConfig({
    cwd,
    env: typeof env === "function" ? env : (n) => env[n],
  });
  if (!located.ok || located.value.relaviumDir === undefined) return none;
  const home = located.value.relaviumDir;
  const entries: Record<string, string> = {};
  for (const f of [located.value.workspaceFile, located.value.projectFile]) {
    if (f === undefined) continue;
    try {
      entries[f] = await sha256Hex(await Deno.readFile(f));
    } catch {
      // absent: nothing to trust
    }
  }
  if (Object.keys(entries).length === 0) return none;
  const existed = await Deno.stat(home).then(() => true, () => false);
  const trustFile = `${home}/trusted.json`;
  const had = await Deno.stat(trustFile).then(() => true, () => false);
  await recordTrust(home, entries);
  return async () => {
    if (!had) await Deno.remove(trustFile).catch(() => {});
    if (!existed) await Deno.remove(home).catch(() => {});
  };
}

/** What a run produced. */
export interface RunResult {
  code: number;
  stdout: string;
  stderr: string;
}

/**
 * `loadCliConfig` after trusting the project files found from `req.cwd`
 * (tests of layering, not of trust).
 */
export async function loadTrustedConfig(
  req: ConfigRequest,
): ReturnType<typeof loadCliConfig> {
  await trustProjectFiles(req.cwd, req.env);
  return loadCliConfig(req);
}

/** Runs `main(argv, io)` with a buffered io. */
export async function runCli(
  argv: string[],
  options: RunOptions = {},
): Promise<RunResult> {
  const b = createBufferedIo({
    env: options.env ?? {},
    cwd: options.cwd ?? "/",
    stdin: options.stdin ?? "",
    stdinIsTerminal: options.tty ?? false,
    stdoutIsTerminal: options.tty ?? false,
    ...(options.fetch === undefined ? {} : { fetch: options.fetch }),
    ...(options.resolveDns === undefined
      ? {}
      : { resolveDns: options.resolveDns }),
  });
  const env = options.env ?? {};
  const flag = argv.indexOf("--cwd");
  const cwdFlag = flag >= 0 ? argv[flag + 1] : undefined;
  const undo = options.trust === false ? undefined : await trustProjectFiles(
    resolve(options.cwd ?? "/", cwdFlag ?? "."),
    env,
  );
  const code = await main(argv, b.io);
  await undo?.();
  return { code, stdout: b.stdoutText(), stderr: b.stderrText() };
}

/** Writes a file, creating its parent folders. */
export async function write(path: string, text: string): Promise<void> {
  await Deno.mkdir(path.slice(0, path.lastIndexOf("/")), { recursive: true });
  await Deno.writeTextFile(path, text);
}

/** A stdin that yields one line per pull (a person typing, line by line). */
export function lineStdin(
  lines: readonly string[],
): ReadableStream<Uint8Array> {
  const queue = lines.map((l) => new TextEncoder().encode(`${l}\n`));
  return new ReadableStream<Uint8Array>({
    pull(controller) {
      const next = queue.shift();
      if (next === undefined) controller.close();
      else controller.enqueue(next);
    },
  });
}

/** The chunks of one model call answering `text`. */
export function replyChunks(text: string): Array<Record<string, unknown>> {
  return textChunks(text);
}

/** A v1.0 cassette of text-only turns for `provider`. */
export function textCassette(provider: string, replies: string[]): string {
  return cassette(
    replies.map((text, i) =>
      textChunks(text, { inputTokens: 10 + i, outputTokens: 2 })
    ),
    provider,
  );
}

/** A v1.0 cassette whose one call fails with an `auth` error (`bad key`). */
export function authErrorCassette(provider: string): string {
  const error = {
    kind: "auth",
    provider,
    message: "bad key",
    retryable: false,
  };
  return cassette([[{ type: "error", error }]], provider);
}

/** JSON with object keys sorted at every depth (key order is not part of the event contract). */
function canonical(value: unknown): string {
  return JSON.stringify(value, (_key, v: unknown) => {
    if (v === null || typeof v !== "object" || Array.isArray(v)) return v;
    const sorted: Record<string, unknown> = {};
    for (const k of Object.keys(v).sort()) {
      sorted[k] = (v as Record<string, unknown>)[k];
    }
    return sorted;
  });
}

/**
 * Parses `--json` stdout strictly: every line is one compact
 * JSON object that `parseSessionEvent` accepts and whose re-serialisation
 * equals the line (no stray fields, nothing coerced; compared with keys
 * sorted), `sequenceNumber` is gap-free from the first line, and the
 * boundary events carry `keptTurnCount` (the parser tolerates its absence
 * on older events; this version's producers always set it).
 */
export function parseEvents(stdout: string): SessionEvent[] {
  assert.ok(stdout.endsWith("\n"), "NDJSON ends with a newline");
  const lines = stdout.slice(0, -1).split("\n");
  const out = lines.map((line) => {
    const raw: unknown = JSON.parse(line);
    assert.equal(JSON.stringify(raw), line, "one compact JSON object a line");
    const parsed = parseSessionEvent(raw);
    assert.ok(parsed.ok, `not an event: ${line}`);
    assert.equal(
      canonical(parsed.value),
      canonical(raw),
      `re-serialises to the schema exactly: ${line}`,
    );
    const event = parsed.value;
    assert.ok(isCurrentEvent(event), `keptTurnCount is set: ${line}`);
    return event;
  });
  const first = out[0]?.sequenceNumber ?? 0;
  out.forEach((e, i) => assert.equal(e.sequenceNumber, first + i, "gap-free"));
  return out;
}

/** Whether an event carries every field this version's producers set. */
export function isCurrentEvent(
  event: SessionEvent | { type: string; keptTurnCount?: never },
): event is SessionEvent {
  return (event.type !== "session:compacted" &&
    event.type !== "session:trimmed") || event.keptTurnCount !== undefined;
}

/** Event signatures: `type`, or `type:toolId` for tool events. */
export function signature(list: readonly SessionEvent[]): string[] {
  return list.map((e) => "toolId" in e ? `${e.type}:${e.toolId}` : e.type);
}

/** The chunks of one model turn that calls tool `name` with `args`. */
export function toolCallChunks(
  id: string,
  name: string,
  args: unknown,
): Record<string, unknown>[] {
  return callChunks(id, name, JSON.stringify(args));
}

/** A streamed `agent:token` event of session `s` (for printer tests). */
export function tokenEvent(
  seq: number,
  text: string,
  model = "m",
): SessionEvent {
  return {
    sessionId: "s",
    timestamp: "2026-01-01T00:00:00.000Z",
    sequenceNumber: seq,
    type: "agent:token",
    nodeId: "n",
    token: text,
    model,
  };
}
