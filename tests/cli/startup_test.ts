import assert from "node:assert/strict";
import { openSqliteStore } from "../../store/sqlite_store.ts";
import { deps, newSession } from "../store/_harness.ts";
import { loadedPackages, ROOT, staticClosure } from "./_module_graph.ts";
import { textCassette } from "./_helpers.ts";

Deno.test("cli.ts statically loads no zod, YAML, TOML or SQLite", async () => {
  const modules = await staticClosure("cli.ts");
  const heavy = modules.filter((m) => /zod|yaml|smol-toml|node:sqlite/.test(m));
  assert.deepEqual(heavy, []);
  assert.ok(!modules.some((m) => m.endsWith("/cli/commands/chat.ts")));
});

Deno.test("the line editor loads only when a chat reads a terminal: neither cli.ts, the help text nor the chat commands load it statically", async () => {
  const editor = (m: string): boolean => m.includes("/cli/chat/editor/");
  for (const entry of ["cli.ts", "cli/help.ts"]) {
    assert.deepEqual((await staticClosure(entry)).filter(editor), [], entry);
  }
  for (const entry of ["cli/commands/chat.ts", "cli/commands/chat_resume.ts"]) {
    const modules = await staticClosure(entry);
    // The reader that imports the editor lazily is there; the editor is not.
    assert.ok(modules.some((m) => m.endsWith("/cli/chat/chat_reader.ts")));
    assert.deepEqual(modules.filter(editor), [], entry);
  }
});

Deno.test("--version and --help load no markdown rendering (only a chat's printer does)", async () => {
  const markdown = (m: string): boolean => m.endsWith("/cli/io/markdown.ts");
  for (const entry of ["cli.ts", "cli/help.ts"]) {
    assert.deepEqual((await staticClosure(entry)).filter(markdown), [], entry);
  }
  const chat = await staticClosure("cli/run/terminal_parts.ts");
  assert.ok(chat.some(markdown), "the chat's terminal parts have it");
});

Deno.test("a lone --version or --help loads no argument parser and no node: module", async () => {
  const modules = await staticClosure("cli.ts");
  assert.deepEqual(modules.filter((m) => m.startsWith("node:")), []);
  assert.ok(!modules.some((m) => m.endsWith("/cli/args.ts")));
  assert.ok(!modules.some((m) => m.endsWith("/cli/command_env.ts")));
  // Nor the terminal chat's status and tool lines.
  for (const chat of ["status.ts", "tool_line.ts", "terminal_hooks.ts"]) {
    assert.ok(!modules.some((m) => m.endsWith(`/cli/chat/${chat}`)), chat);
  }
});

Deno.test("agent run loads tools, TOML and cassette modules only when needed", async () => {
  const modules = await staticClosure("cli/commands/agent_run.ts");
  // Paths inside the package (the checkout itself may sit in a tools/ dir).
  const root = new URL("../../", import.meta.url).href;
  const tools = modules.filter((m) => m.startsWith(`${root}tools/`));
  // modes.ts only: the SSRF primitive under the base-URL checks loads for
  // a custom endpoint.
  assert.deepEqual(
    tools.map((m) => `/${m.slice(root.length)}`),
    ["/tools/modes.ts"],
  );
  assert.ok(!modules.some((m) => m.endsWith("/cli/run/tool_wiring.ts")));
  // The TOML parser loads only when a config file exists.
  assert.ok(!modules.some((m) => m.includes("smol-toml")));
  // The cassette parser loads only for --fixture.
  assert.ok(!modules.some((m) => m.endsWith("/cli/run/fixture.ts")));
});

// What a cassette one-shot uses nothing of before its first event: the
// terminal chat's parts, the base-URL, DNS and SSRF checks of custom
// endpoints, the trust store and the untrusted-provider check (no project
// file), the compaction primitive (no compaction) and the `!` command runner.
const LAZY_FOR_A_ONE_SHOT = [
  "cli/chat/status.ts",
  "cli/chat/tool_line.ts",
  "cli/config/base_url.ts",
  "cli/config/trust_store.ts",
  "cli/config/withheld.ts",
  "cli/io/live_markdown.ts",
  "cli/io/markdown.ts",
  "cli/run/provider_dns.ts",
  "cli/run/terminal_parts.ts",
  "session/user_command.ts",
  "session/window/compact.ts",
  "session/window/compaction.ts",
  "session/window/summary_pass.ts",
  "tools/sandbox/_ip.ts",
  "tools/sandbox/_metadata.ts",
  "tools/sandbox/ssrf.ts",
  "tools/sandbox/ssrf_address.ts",
];

/** A cassette one-shot in `home` (an agent and a one-answer cassette). */
async function cassetteOneShot(
  home: string,
): ReturnType<typeof loadedPackages> {
  await Deno.writeTextFile(
    `${home}/a.agent.yaml`,
    "id: a\nmodel: gpt-5.4-mini\nprovider: openai\nsystem_prompt: hi\n",
  );
  await Deno.writeTextFile(
    `${home}/c.json`,
    textCassette("openai", ["Done."]),
  );
  return await loadedPackages(
    ["agent", "run", "a.agent.yaml", "--fixture", "c.json"],
    home,
    "hello\n",
  );
}

Deno.test("a cassette one-shot loads none of the modules it does not use, statically or at run time", async () => {
  const root = new URL("../../", import.meta.url).href;
  const own = (m: string): string => m.slice(root.length);
  const closure = (await staticClosure("cli/commands/agent_run.ts")).map(own);
  assert.deepEqual(closure.filter((m) => LAZY_FOR_A_ONE_SHOT.includes(m)), []);
  const home = await Deno.makeTempDir();
  try {
    const run = await cassetteOneShot(home);
    assert.equal(run.code, 0);
    assert.equal(run.stdout, "Done.\n");
    assert.ok(run.modules.includes("session/window/window.ts"), "the log");
    assert.deepEqual(
      run.modules.filter((m) => LAZY_FOR_A_ONE_SHOT.includes(m)),
      [],
    );
  } finally {
    await Deno.remove(home, { recursive: true });
  }
});

Deno.test("cli.ts runs --version in a real process", async () => {
  const out = await new Deno.Command(Deno.execPath(), {
    args: ["run", "--no-prompt", "cli.ts", "--version"],
    cwd: ROOT,
    stdout: "piped",
    stderr: "piped",
  }).output();
  assert.equal(out.code, 0);
  assert.equal(new TextDecoder().decode(out.stdout), "0.2.0\n");
});

Deno.test("--version, --help, chat-list and chat-export load no zod and no YAML library (their real module graph)", async () => {
  const home = await Deno.makeTempDir();
  try {
    const store = openSqliteStore(`${home}/history.db`, deps());
    store.create(newSession("s1"));
    // A completed turn: chat-list leaves out sessions with nothing in them.
    store.commitTurn("s1", {
      userText: "hi",
      rounds: [],
      finalText: "hello",
      tokensUsed: { input: 1, output: 1 },
      costs: [],
    });
    store.close();
    await Deno.writeTextFile(
      `${home}/a.agent.yaml`,
      "id: a\nmodel: gpt-5.4-mini\nprovider: openai\nsystem_prompt: hi\n",
    );
    const heavy = (p: string[]) => p.filter((n) => /zod|yaml/.test(n));
    for (
      const args of [
        ["--version"],
        ["--help"],
        ["chat-list"],
        // An export reads no context: no schema loads for one.
        ["chat-export", "s1", "--out", "s1.yaml"],
      ]
    ) {
      const run = await loadedPackages(args, home);
      assert.equal(run.code, 0, args.join(" "));
      assert.deepEqual(heavy(run.packages), [], args.join(" "));
      if (args[0] === "chat-list") assert.match(run.stdout, /s1/);
      // A run that prints no fault loads no fault printer (nor the secret
      // screen it redacts with); one that only locates the config files
      // (chat-list: the store's path) loads no config reader, resolver or
      // provider URL checks.
      const loaded = (m: string) => run.modules.includes(m);
      assert.ok(loaded("cli/main.ts"), "the log names own modules");
      for (const m of ["cli/io/fault_line.ts", "host/secrets.ts"]) {
        assert.equal(loaded(m), false, `${args.join(" ")} loads ${m}`);
      }
      if (args[0] === "chat-list") {
        assert.ok(loaded("cli/config/config.ts"));
        for (
          const m of [
            "cli/config/read.ts",
            "cli/config/resolve.ts",
            "tools/sandbox/ssrf.ts",
          ]
        ) {
          assert.equal(loaded(m), false, `chat-list loads ${m}`);
        }
      }
    }
    // Positive control: reading an agent file loads zod and js-yaml, and
    // the log shows it (the run then stops for want of a key).
    const control = await loadedPackages(
      ["agent", "run", "a.agent.yaml"],
      home,
      "hi\n",
    );
    assert.notEqual(control.code, 0);
    assert.deepEqual(heavy(control.packages), ["js-yaml", "zod"]);
  } finally {
    await Deno.remove(home, { recursive: true });
  }
});

Deno.test("a one-shot and a chat import no node:path, node:util or node:url, statically or at run time", async () => {
  const compat = (m: string): boolean => /^node:(path|util|url)$/.test(m);
  for (
    const entry of [
      "cli/args.ts",
      "cli/main.ts",
      "cli/commands/agent_run.ts",
      "cli/commands/chat.ts",
      "cli/run/fixture.ts",
      "cli/run/history.ts",
    ]
  ) {
    assert.deepEqual((await staticClosure(entry)).filter(compat), [], entry);
  }
  const home = await Deno.makeTempDir();
  try {
    // Writes the agent and the cassette the chat below uses too.
    const oneShot = await cassetteOneShot(home);
    assert.equal(oneShot.code, 0);
    assert.equal(oneShot.stdout, "Done.\n");
    assert.deepEqual(oneShot.nodeModules, []);
    // A cassette chat persists its turn: SQLite is its one node: module
    // (and the log shows node: imports at all).
    const chat = await loadedPackages(
      ["chat", "--agent", "a.agent.yaml", "--fixture", "c.json"],
      home,
      "hello\n",
    );
    assert.equal(chat.code, 0);
    assert.deepEqual(chat.nodeModules, ["node:sqlite"]);
  } finally {
    await Deno.remove(home, { recursive: true });
  }
});
