/**
 * Attack table: what an approval shows. One row per vector, each driven
 * through an interactive chat (a fake TTY) in `accept-edits` mode (or
 * `ask`, for a write in the jail, which `accept-edits` runs unasked) with
 * a cassette-scripted model; every row answers `n` and checks that the
 * prompt showed what would have run and that nothing ran.
 */
import assert from "node:assert/strict";
import { tempDir, write } from "../cli/_helpers.ts";
import { interactiveChat, toolCall, writeScript } from "./_kit.ts";
import { z } from "zod";
import * as lib from "../../mod.ts";
import { tool } from "../../tools/mod.ts";

interface Row {
  name: string;
  tools: string[];
  /** The global `config.toml` (the user's own grants). */
  config?: string;
  /** Prepares the workspace. */
  arrange?(ws: string): Promise<void>;
  call: unknown;
  /** The mode (default `accept-edits`). */
  mode?: string;
  /** Lines typed after the user's message. */
  answers: string[];
  /** Pieces the prompt on stderr must contain, in order. */
  shows: (ws: string) => string[];
  /** What stderr must never show. */
  hides?: string[];
  /** What must not exist afterwards. */
  absent: (ws: string) => string[];
}

const LONG_TAIL = "--output=/tmp/relavium-attack-outside/.bashrc";
const LONG_ARGS = ["-1", "--oneline", "x".repeat(320), LONG_TAIL];

const ROWS: Row[] = [
  {
    name: "a long command line is shown whole, its tail included",
    tools: ["run_command"],
    config: '[chat]\nallowed_command_globs = ["echo *"]\n',
    call: toolCall("run_command", { command: "echo", args: LONG_ARGS }),
    answers: ["n"],
    shows: () => [
      "Approve run_command:\n  echo -1 --oneline ",
      `${LONG_TAIL}\n[y] once  [a] always  [n] no `,
    ],
    absent: () => [],
  },
  {
    name: "an argument's bounds and control characters show",
    tools: ["run_command"],
    config: '[chat]\nallowed_command_globs = ["echo *"]\n',
    call: toolCall("run_command", {
      command: "echo",
      args: ["-1 --oneline", "x\n--output=/tmp/o", "it's"],
    }),
    answers: ["n"],
    shows: () => [
      `Approve run_command echo '-1 --oneline' "x\\n--output=/tmp/o" 'it'\\''s'? `,
    ],
    absent: () => [],
  },
  {
    name: "a write through a symlink is shown as its resolved, protected path",
    tools: ["write_file"],
    async arrange(ws) {
      await Deno.mkdir(`${ws}/.git/hooks`, { recursive: true });
      await Deno.symlink(`${ws}/.git/hooks`, `${ws}/docs`);
    },
    call: toolCall("write_file", {
      path: "docs/pre-commit",
      content: "#!/bin/sh\ntouch pwned\n",
    }),
    // accept-edits and auto run no write unasked here: the write jail
    // refuses a target protected only through a symlink (jail_test.ts).
    mode: "ask",
    answers: ["n"],
    shows: () => [
      "Approve write_file .git/hooks/pre-commit (protected path; requested as docs/pre-commit)? [y] once  [n] no ",
    ],
    absent: (ws) => [`${ws}/.git/hooks/pre-commit`],
  },
  {
    name: "a lexically protected write is flagged",
    tools: ["write_file"],
    call: toolCall("write_file", { path: ".bashrc", content: "evil\n" }),
    answers: ["n"],
    shows: () => [
      "Approve write_file .bashrc (protected path)? [y] once  [n] no ",
    ],
    absent: (ws) => [`${ws}/.bashrc`],
  },
  {
    name: "an overwrite of a sensitive file shows its size, never its text",
    tools: ["write_file"],
    async arrange(ws) {
      await Deno.writeTextFile(`${ws}/.env`, "TOKEN=hunter2-secret\n");
    },
    call: toolCall("write_file", { path: ".env", content: "x\n" }),
    mode: "ask",
    answers: ["n"],
    shows: () => [
      "write_file overwrites 21 bytes with 2 bytes (its current content is not shown); new content:\n  + x\n",
      "Approve write_file .env",
    ],
    hides: ["hunter2"],
    absent: () => [],
  },
  {
    name:
      "a write through a symlink out of the jail shows no text of the file there",
    tools: ["write_file"],
    async arrange(ws) {
      await Deno.mkdir(`${ws}/../outside`);
      await Deno.writeTextFile(`${ws}/../outside/notes.txt`, "private words\n");
      await Deno.symlink(`${ws}/../outside`, `${ws}/link`);
    },
    call: toolCall("write_file", { path: "link/notes.txt", content: "x\n" }),
    mode: "ask",
    answers: ["n"],
    shows: () => ["write_file overwrites 14 bytes with 2 bytes (its current"],
    hides: ["private words"],
    absent: () => [],
  },
  {
    name: "an unrecognised answer asks again",
    tools: ["write_file"],
    call: toolCall("write_file", { path: "notes.txt", content: "hi\n" }),
    mode: "ask",
    answers: ["sure", "n"],
    shows: () => [
      "Approve write_file notes.txt? [y] once  [a] always  [n] no ",
      "Please answer y (once), a (always) or n (no): ",
    ],
    absent: (ws) => [`${ws}/notes.txt`],
  },
];

for (const row of ROWS) {
  Deno.test(`approval attack: ${row.name}`, async () => {
    await using dir = await tempDir();
    const ws = `${dir.path}/ws`;
    await Deno.mkdir(ws);
    await row.arrange?.(ws);
    const home = `${dir.path}/home`;
    await Deno.mkdir(home);
    if (row.config !== undefined) {
      await write(`${home}/config.toml`, row.config);
    }
    await writeScript(dir.path, { tools: row.tools, calls: [row.call] });
    const r = await interactiveChat(dir.path, {
      cwd: ws,
      env: { RELAVIUM_HOME: home },
      lines: ["do it", ...row.answers],
      mode: row.mode ?? "accept-edits",
    });
    const err = r.stderr;
    assert.equal(r.code, 4, err);
    let at = 0;
    for (const piece of row.shows(ws)) {
      const i = err.indexOf(piece, at);
      assert.ok(i >= 0, `missing in order: ${JSON.stringify(piece)}\n${err}`);
      at = i + piece.length;
    }
    assert.doesNotMatch(err, /Internal error|\n\s+at /);
    for (const hidden of row.hides ?? []) {
      assert.ok(!err.includes(hidden), `shown: ${hidden}\n${err}`);
    }
    for (const path of row.absent(ws)) {
      await assert.rejects(Deno.lstat(path), Deno.errors.NotFound, path);
    }
  });
}

/**
 * Attack table (safe by default): a library host that sets no turn policy
 * and no mode. A model (or a prompt injected into what it read) asks for
 * each governed action; every one is refused `no_approval_hook` before
 * any effect: no write, no process, no lookup, no request, no custom
 * tool's `execute`.
 */
interface NoPolicyRow {
  name: string;
  call: { name: string; args: unknown };
}

const NO_POLICY_ROWS: NoPolicyRow[] = [
  {
    name: "a write inside the jail",
    call: { name: "write_file", args: { path: "pwned.txt", content: "x" } },
  },
  {
    name: "an append",
    call: {
      name: "write_file",
      args: { path: "seed.txt", content: "x", append: true },
    },
  },
  {
    name: "an allowlisted command",
    call: { name: "run_command", args: { command: "touch", args: ["pwned"] } },
  },
  {
    name: "a request to an allowed domain",
    call: { name: "http_request", args: { url: "https://example.com/x" } },
  },
  {
    name: "a custom tool that is not readOnly",
    call: { name: "deploy", args: {} },
  },
];

for (const row of NO_POLICY_ROWS) {
  Deno.test(`no turn policy refuses ${row.name} (no_approval_hook)`, async () => {
    await using dir = await tempDir();
    const ws = dir.path;
    await Deno.writeTextFile(`${ws}/seed.txt`, "seed");
    const effects: string[] = [];
    const real = lib.createDenoToolEffects();
    const host = {
      ...real,
      spawn: (r: Parameters<typeof real.spawn>[0]) => {
        effects.push("spawn");
        return real.spawn(r);
      },
      mkdir: () => Promise.reject(effects.push("mkdir")),
      writeFileAtomic: () => Promise.reject(effects.push("write")),
      appendFile: () => Promise.reject(effects.push("append")),
      resolveDns: () => Promise.reject(effects.push("dns")),
      fetch: () => Promise.reject(effects.push("fetch")),
    };
    const deploy = tool({
      name: "deploy",
      description: "Deploys",
      inputSchema: z.strictObject({}),
      execute: () => effects.push("deploy"),
    });
    const provider = lib.createScriptedProvider({
      id: "openai",
      script: [[
        { type: "tool_call_start", id: "c1", name: row.call.name },
        {
          type: "tool_call_delta",
          id: "c1",
          argsJsonDelta: JSON.stringify(row.call.args),
        },
        { type: "tool_call_end", id: "c1" },
        {
          type: "stop",
          stopReason: "tool_use",
          usage: { inputTokens: 1, outputTokens: 1 },
        },
      ]],
    });
    using live = lib.openSession({
      store: lib.createMemoryStore(),
      runtime: lib.denoRuntime({
        resolveProvider: () => provider,
        workingDir: ws,
      }),
      tools: lib.createToolRegistry({
        tools: [...lib.allBuiltinTools(), deploy],
        host,
        context: { workingDir: ws, fsScopeTier: "sandboxed" },
        permissions: () => "granted",
        guardrails: {
          allowedCommands: ["touch pwned"],
          allowedDomains: ["example.com"],
        },
      }),
      agent: {
        id: "a",
        model: "gpt-5.4-mini",
        provider: "openai",
        system_prompt: "x",
        tools: [row.call.name],
      },
      context: { workingDir: ws, fsScopeTier: "sandboxed" },
    });
    const result = await live.session.sendMessage("do it");
    assert.equal(result.kind, "failed");
    if (result.kind === "failed") {
      assert.equal(result.error.code, "tool_denied");
      assert.match(result.error.message, /\(no_approval_hook\)/);
    }
    assert.deepEqual(effects, []);
    assert.equal(await Deno.readTextFile(`${ws}/seed.txt`), "seed");
    await assert.rejects(Deno.lstat(`${ws}/pwned`), Deno.errors.NotFound);
    await assert.rejects(Deno.lstat(`${ws}/pwned.txt`), Deno.errors.NotFound);
  });
}
