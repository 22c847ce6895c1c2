/** Shared pieces of the attack tables: a scripted model's calls, the agent and cassette files, an interactive chat on a fake TTY. */
import assert from "node:assert/strict";
import { createBufferedIo } from "../../cli/io/io.ts";
import { main } from "../../cli/main.ts";
import { openRecorder } from "../../cli/run/record.ts";
import { createScriptedProvider } from "../../llm/scripted_provider.ts";
import type { SessionEvent } from "../../schema/event.ts";
import { openSqliteStore } from "../../store/sqlite_store.ts";
import { lineStdin, parseEvents, runCli, write } from "../cli/_helpers.ts";
import { deps, newSession, turn } from "../store/_harness.ts";

/** One cassette call: the model asks for one tool call. */
export function toolCall(name: string, args: unknown): unknown {
  return {
    chunks: [
      { type: "tool_call_start", id: "c1", name },
      {
        type: "tool_call_delta",
        id: "c1",
        argsJsonDelta: JSON.stringify(args),
      },
      { type: "tool_call_end", id: "c1" },
      {
        type: "stop",
        stopReason: "tool_use",
        usage: { inputTokens: 10, outputTokens: 3 },
      },
    ],
  };
}

/** One cassette call: the model answers with text. */
export function textCall(text: string): unknown {
  return {
    chunks: [
      { type: "text_delta", text },
      {
        type: "stop",
        stopReason: "stop",
        usage: { inputTokens: 20, outputTokens: 4 },
      },
    ],
  };
}

/**
 * Writes `helper.agent.yaml` (anthropic, granting `tools`) and the strict
 * v1.1 cassette `c.json` into `dir`.
 */
export async function writeScript(
  dir: string,
  options: { tools: readonly string[]; calls: readonly unknown[] },
): Promise<void> {
  await write(
    `${dir}/helper.agent.yaml`,
    `id: helper\nmodel: claude-haiku-4-5\nprovider: anthropic\nsystem_prompt: Help.\ntools: [${
      options.tools.join(", ")
    }]\n`,
  );
  await write(
    `${dir}/c.json`,
    JSON.stringify({
      schema_version: "1.1",
      strict: true,
      provider: "anthropic",
      calls: options.calls,
    }),
  );
}

/** The flags that run the script `writeScript` wrote into `dir`. */
export function scriptFlags(dir: string): string[] {
  return ["--agent", `${dir}/helper.agent.yaml`, "--fixture", `${dir}/c.json`];
}

/** Runs `chat` with the script of `dir` on a fake TTY, line by line. */
export async function interactiveChat(
  dir: string,
  options: {
    cwd: string;
    env: Record<string, string>;
    lines: readonly string[];
    mode: string;
  },
): Promise<{ code: number; stdout: string; stderr: string }> {
  const b = createBufferedIo({
    env: { NO_COLOR: "1", ...options.env },
    cwd: options.cwd,
    stdin: lineStdin(options.lines),
    stdinIsTerminal: true,
    stdoutIsTerminal: true,
  });
  const code = await main(
    ["chat", ...scriptFlags(dir), "--mode", options.mode],
    b.io,
  );
  return { code, stdout: b.stdoutText(), stderr: b.stderrText() };
}

/** Asserts a run's text holds no stack trace and no `Internal error`. */
export function assertNoCrash(text: string): void {
  assert.doesNotMatch(text, /Internal error/);
  assert.doesNotMatch(text, /^\s+at .*:\d+:\d+\)?$/m, "no stack trace");
}

/** What one scripted `chat --json` run produced. */
export interface ScriptedRun {
  code: number;
  stdout: string;
  stderr: string;
  events: SessionEvent[];
  /** The `agent:tool_result` events, in order. */
  results: Extract<SessionEvent, { type: "agent:tool_result" }>[];
  /** The error code of the first completed turn, if it failed. */
  turnError: string | undefined;
}

/**
 * Runs `chat --json --mode <mode>` with the script `writeScript` wrote
 * into `dir`, one user line, from `cwd`; asserts no crash reached the user.
 */
export async function scriptedChat(
  dir: string,
  options: { cwd: string; env: Record<string, string>; mode?: string },
): Promise<ScriptedRun> {
  const r = await runCli(
    ["chat", ...scriptFlags(dir), "--json", "--mode", options.mode ?? "auto"],
    { env: options.env, cwd: options.cwd, stdin: "go\n" },
  );
  assertNoCrash(r.stdout + r.stderr);
  const events = parseEvents(r.stdout);
  const results = events.filter((e) => e.type === "agent:tool_result");
  const done = events.find((e) => e.type === "session:turn_completed");
  const turnError = done?.type === "session:turn_completed"
    ? done.error?.code
    : undefined;
  return { ...r, events, results, turnError };
}

/**
 * Every entry under each of `dirs` with its content (a symlink as its
 * target, a directory by name), sorted: equal before and after a row
 * means nothing there changed.
 */
export async function treeState(dirs: readonly string[]): Promise<string[]> {
  const out: string[] = [];
  const walk = async (d: string, depth: number): Promise<void> => {
    if (depth > 8) return;
    for await (const e of Deno.readDir(d)) {
      const p = `${d}/${e.name}`;
      if (e.isSymlink) out.push(`${p} -> ${await Deno.readLink(p)}`);
      else if (e.isDirectory) {
        out.push(`${p}/`);
        await walk(p, depth + 1);
      } else {
        const mode = ((await Deno.lstat(p)).mode ?? 0).toString(8);
        out.push(`${p} ${mode}\n${await Deno.readTextFile(p)}`);
      }
    }
  };
  for (const d of dirs) await walk(d, 0);
  return out.sort();
}

/**
 * Seeds `<dir>/home/history.db` with sessions `s1`, `s2`, … (one turn
 * each, asking `questions[i]`) and returns its path. `ticking` stamps
 * rows from a clock counting up from 1,000 instead of the fixed one.
 */
export async function seedHistory(
  dir: string,
  questions: readonly string[] = ["first question"],
  options: { ticking?: boolean } = {},
): Promise<string> {
  await Deno.mkdir(`${dir}/home`, { recursive: true });
  const path = `${dir}/home/history.db`;
  let now = 1_000;
  const store = openSqliteStore(
    path,
    options.ticking === true
      ? { ...deps(), clock: { now: () => now++ } }
      : deps(),
  );
  questions.forEach((q, i) => {
    store.create(newSession(`s${i + 1}`));
    store.commitTurn(`s${i + 1}`, turn(q));
  });
  store.close();
  return path;
}

/**
 * Records one anthropic turn with `--record`'s recorder into
 * `<dir>/c.json`: the user says `userText`, the model says `said`, the
 * call carries `key`; `secrets` are the configured keys. Returns the
 * written cassette's text.
 */
export async function recordOneTurn(
  dir: string,
  options: {
    secrets: readonly string[];
    key: string;
    userText: string;
    said: string;
  },
): Promise<string> {
  const r = await openRecorder("c.json", {
    cwd: dir,
    primaryProvider: "anthropic",
    model: "claude-haiku-4-5",
    secrets: [...options.secrets],
  });
  assert.ok(r.ok);
  const provider = r.value.wrap(
    "anthropic",
    createScriptedProvider({
      id: "anthropic",
      script: [[
        { type: "text_delta", text: options.said },
        {
          type: "stop",
          stopReason: "stop",
          usage: { inputTokens: 1, outputTokens: 1 },
        },
      ]],
    }),
  );
  const messages = [{
    role: "user" as const,
    content: [{ type: "text" as const, text: options.userText }],
  }];
  for await (
    const _ of provider.stream(
      { model: "claude-haiku-4-5", messages },
      options.key,
    )
  ) {
    // consume
  }
  const written = await r.value.write();
  assert.ok(written.ok);
  return await Deno.readTextFile(`${dir}/c.json`);
}

/**
 * Runs one scripted `http_request` call to `url` through `chat --json`
 * with `allow` as the allowed domains; asserts the call failed and
 * returns its result and the run.
 */
export async function refusedRequest(
  dir: string,
  url: string,
  allow: readonly string[],
): Promise<
  {
    run: ScriptedRun;
    result: Extract<SessionEvent, { type: "agent:tool_result" }>;
  }
> {
  await write(
    `${dir}/home/config.toml`,
    `[chat]\nallowed_domains = [${
      allow.map((d) => JSON.stringify(d)).join(", ")
    }]\n`,
  );
  await writeScript(dir, {
    tools: ["http_request"],
    calls: [toolCall("http_request", { url })],
  });
  const run = await scriptedChat(dir, {
    cwd: dir,
    env: { RELAVIUM_HOME: `${dir}/home` },
  });
  const result = run.results[0];
  assert.ok(result !== undefined, run.stdout + run.stderr);
  assert.equal(result.success, false, JSON.stringify(result));
  return { run, result };
}
