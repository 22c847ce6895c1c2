/**
 * `deno task demo`: the bundled example agent (`demo/helper.agent.yaml`)
 * chats through the bundled two-turn cassette (`demo/cassette.json`, one
 * tool call per turn through the real `read_file` / `list_directory` on
 * `demo/workspace/`) with `demo/messages.txt` as stdin, persisted to
 * `demo/.relavium-demo/history.db`; then `chat-list` and `chat-show` of
 * that session. Offline: the cassette replaces the provider, so no key is
 * needed. The chat runs in the CLI's default `ask` mode with no terminal
 * to ask on: the agent's two tools are read-only, so they run; a write or
 * a command would be refused (the CLI's `--mode auto`, or a library
 * session's `settings: { mode: "auto" }`, is the explicit opt-in).
 *
 * It calls the CLI's `main(argv, io)` in-process with absolute paths
 * (`RELAVIUM_HOME` must be absolute). `--json` runs the
 * chat under `--json`.
 *
 * @example Run it
 * ```sh
 * deno task demo          # plain
 * deno task demo --json   # the chat as NDJSON events
 * ```
 *
 * @module
 */
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import {
  type CliIo,
  createBufferedIo,
  createDenoIo,
  type TextSink,
} from "../cli/io/io.ts";
import { main } from "../cli/main.ts";

/** The folder holding this file (absolute). */
const DEMO_DIR: string = fileURLToPath(new URL(".", import.meta.url));

/**
 * Options of {@linkcode runDemo}.
 *
 * @example Value
 * ```ts
 * import type { DemoOptions } from "./run.ts";
 * const o: DemoOptions = { home: "/tmp/demo-home", stdout: { write() {} }, stderr: { write() {} } };
 * ```
 */
export interface DemoOptions {
  /** The Relavium folder (`history.db`), absolute. */
  home: string;
  /** Where the CLI's stdout goes. */
  stdout: TextSink;
  /** Where the CLI's stderr and the step headers go. */
  stderr: TextSink;
  /** Run the chat under `--json` (default `false`). */
  json?: boolean;
  /** Colour the CLI's annotations (default `false`). */
  color?: boolean;
}

/**
 * The exit code of each step, and the session the chat created.
 *
 * @example Value
 * ```ts
 * import type { DemoResult } from "./run.ts";
 * const r: DemoResult = { chat: 0, list: 0, show: 0, sessionId: "…" };
 * ```
 */
export interface DemoResult {
  /** `chat` (0: every turn of the piped chat succeeded). */
  chat: number;
  /** `chat-list` (0). */
  list: number;
  /** `chat-show <id>` (0); `-1` when no session was found to show. */
  show: number;
  /** The new session's id. */
  sessionId?: string;
}

function demoIo(
  options: DemoOptions,
  cwd: string,
  stdin: ReadableStream<Uint8Array>,
): CliIo {
  const env: Readonly<Record<string, string>> = {
    RELAVIUM_HOME: options.home,
    // Project discovery stops here: nothing above demo/ is consulted.
    HOME: DEMO_DIR,
  };
  return {
    stdin,
    stdout: options.stdout,
    stderr: options.stderr,
    env: (name) => Object.hasOwn(env, name) ? env[name] : undefined,
    cwd,
    stdinIsTerminal: false,
    stdoutIsTerminal: false,
    onSignal: () => () => {},
  };
}

function emptyStdin(): ReadableStream<Uint8Array> {
  return new ReadableStream({
    start(c) {
      c.close();
    },
  });
}

/**
 * Runs the demo: `chat` with the bundled agent, cassette and messages,
 * then `chat-list` and `chat-show` of the new session.
 *
 * @param options The home folder, output sinks, `--json` and colour.
 * @returns Each step's exit code and the session id.
 *
 * @example Into a temp home
 * ```ts ignore
 * import { runDemo } from "./run.ts";
 * const home = await Deno.makeTempDir();
 * const r = await runDemo({ home, stdout: { write() {} }, stderr: { write() {} } });
 * // r.chat === 0, r.list === 0, r.show === 0
 * ```
 */
export async function runDemo(options: DemoOptions): Promise<DemoResult> {
  const workspace = join(DEMO_DIR, "workspace");
  const agent = join(DEMO_DIR, "helper.agent.yaml");
  const cassette = join(DEMO_DIR, "cassette.json");
  const messages = join(DEMO_DIR, "messages.txt");
  const flags = options.color === true ? [] : ["--no-color"];
  const step = (line: string): void => options.stderr.write(`\n$ ${line}\n`);

  step(
    `relavium chat --agent demo/helper.agent.yaml --fixture demo/cassette.json${
      options.json === true ? " --json" : ""
    } < demo/messages.txt   (in demo/workspace/, RELAVIUM_HOME=${options.home})`,
  );
  const input = await Deno.open(messages, { read: true });
  const chat = await main([
    "chat",
    "--agent",
    agent,
    "--fixture",
    cassette,
    ...(options.json === true ? ["--json"] : []),
    ...flags,
  ], demoIo(options, workspace, input.readable));

  const probe = createBufferedIo();
  const listed = await main(
    ["chat-list", "--json"],
    demoIo({ ...options, stdout: probe.io.stdout }, workspace, emptyStdin()),
  );
  const newest = listed === 0 ? probe.stdoutText().split("\n")[0] ?? "" : "";
  const sessionId = newest === ""
    ? undefined
    : String((JSON.parse(newest) as { sessionId: unknown }).sessionId);

  step("relavium chat-list");
  const list = await main(
    ["chat-list", ...flags],
    demoIo(options, workspace, emptyStdin()),
  );
  if (sessionId === undefined) return { chat, list, show: -1 };
  step(`relavium chat-show ${sessionId}`);
  const show = await main(
    ["chat-show", sessionId, ...flags],
    demoIo(options, workspace, emptyStdin()),
  );
  return { chat, list, show, sessionId };
}

if (import.meta.main) {
  const real = createDenoIo();
  const json = Deno.args.includes("--json");
  const unknown = Deno.args.filter((a) => a !== "--json");
  if (unknown.length > 0) {
    real.stderr.write(`demo: unknown argument ${unknown[0]} (only --json)\n`);
    Deno.exit(2);
  }
  const r = await runDemo({
    home: join(DEMO_DIR, ".relavium-demo"),
    stdout: real.stdout,
    stderr: real.stderr,
    json,
    color: Deno.stderr.isTerminal() && real.env("NO_COLOR") === undefined,
  });
  const ok = r.chat === 0 && r.list === 0 && r.show === 0;
  if (ok) {
    real.stderr.write(
      `\nThe session is stored in demo/.relavium-demo/history.db; explore it with\n  RELAVIUM_HOME="$PWD/demo/.relavium-demo" deno run --allow-read --allow-write --allow-env cli.ts chat-export ${r.sessionId} --out /tmp/demo.relavium.yaml\n`,
    );
  } else {
    real.stderr.write(
      `\ndemo failed: chat exit ${r.chat} (want 0), chat-list ${r.list}, chat-show ${r.show}\n`,
    );
  }
  Deno.exit(ok ? 0 : 1);
}
