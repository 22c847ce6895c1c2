/**
 * MCP through the CLI: an agent naming a server of the global
 * `[[mcp_servers]]` by `{ref}` gets its tools; a cassette model calls one.
 */
import assert from "node:assert/strict";
import { textCall, toolCall } from "../attacks/_kit.ts";
import { parseSessionEvent, type SessionEvent } from "../../schema/event.ts";
import { parseEvents, runCli, tempDir, write } from "./_helpers.ts";
import { SERVER_TOOL_IDS, serverArgs } from "../tools/mcp/_harness.ts";

function hostEnv(home: string): Record<string, string> {
  return {
    CALC_SECRET: TOKEN,
    RELAVIUM_HOME: home,
    NO_COLOR: "1",
    PATH: Deno.env.get("PATH") ?? "",
    HOME: Deno.env.get("HOME") ?? "",
  };
}

const TOKEN = "mcp-secret-value-0123456789abcdef";

/** Runs `agent run a.agent.yaml` on the cassette, with its tool result. */
async function runAgent(
  dir: string,
  prompt: string,
  mode: string[] = ["--mode", "auto"],
): Promise<
  {
    r: Awaited<ReturnType<typeof runCli>>;
    result: SessionEvent | undefined;
  }
> {
  const r = await runCli(
    [
      "agent",
      "run",
      "a.agent.yaml",
      "--json",
      "--fixture",
      "c.json",
      ...mode,
      prompt,
    ],
    { env: hostEnv(`${dir}/home`), cwd: `${dir}/ws` },
  );
  const result = parseEvents(r.stdout).find((e) =>
    e.type === "agent:tool_result"
  );
  return { r, result };
}

/** Writes the strict cassette `ws/c.json` of `dir`. */
async function writeCassette(dir: string, calls: unknown[]): Promise<void> {
  await write(
    `${dir}/ws/c.json`,
    JSON.stringify({
      schema_version: "1.1",
      strict: true,
      provider: "anthropic",
      calls,
    }),
  );
}

async function setUp(dir: string, calls: unknown[]): Promise<void> {
  await write(
    `${dir}/home/config.toml`,
    [
      "[[mcp_servers]]",
      'id = "calc"',
      'transport = "stdio"',
      `command = ${JSON.stringify(Deno.execPath())}`,
      `args = ${JSON.stringify(serverArgs(dir))}`,
      'env = { CALC_TOKEN = "{{secrets.CALC_SECRET}}" }',
      "startup_timeout_ms = 30000",
      "",
    ].join("\n"),
  );
  await write(
    `${dir}/ws/a.agent.yaml`,
    "id: a\nmodel: claude-haiku-4-5\nprovider: anthropic\nsystem_prompt: Help.\nmcp_servers: [{ ref: calc }]\n",
  );
  await writeCassette(dir, calls);
}

Deno.test("agent run: an agent naming a global MCP server calls mcp_calc_add in auto mode", async () => {
  await using dir = await tempDir();
  await setUp(dir.path, [
    {
      ...(toolCall("mcp_calc_add", { a: 20, b: 22 }) as object),
      expect: { tools: SERVER_TOOL_IDS },
    },
    textCall("42."),
  ]);
  const { r, result } = await runAgent(dir.path, "add");
  assert.equal(r.code, 0, r.stderr);
  assert.ok(result?.type === "agent:tool_result");
  assert.equal(result.toolId, "mcp_calc_add");
  assert.equal(result.success, true);
  assert.match(result.outputSummary, /^42\b/);
});

Deno.test("agent run: in ask mode without a terminal an MCP call is refused and never reaches the server", async () => {
  await using dir = await tempDir();
  await setUp(dir.path, [
    toolCall("mcp_calc_slow", { ms: 1 }),
  ]);
  const { r, result } = await runAgent(dir.path, "slow", []);
  assert.equal(r.code, 1, r.stderr);
  assert.ok(result?.type === "agent:tool_result");
  assert.equal(result.success, false);
  // Refused no_approval_hook, as for every governed built-in, with the
  // reason nobody could be asked.
  assert.match(
    r.stdout,
    /Tool call denied \(no_approval_hook\): mcp_calc_slow needs approval in ask mode and there is no terminal to ask on/,
  );
  const log = await Deno.readTextFile(`${dir.path}/server.log`).catch(() => "");
  assert.equal(log, "");
});

Deno.test("agent run: an MCP server that cannot start is one warning and the run goes on", async () => {
  await using dir = await tempDir();
  await write(
    `${dir.path}/home/config.toml`,
    '[[mcp_servers]]\nid = "calc"\ntransport = "stdio"\ncommand = "/nonexistent/mcp-server"\n',
  );
  await write(
    `${dir.path}/ws/a.agent.yaml`,
    "id: a\nmodel: claude-haiku-4-5\nprovider: anthropic\nsystem_prompt: Help.\nmcp_servers: [{ ref: calc }, { ref: nope }]\n",
  );
  await write(
    `${dir.path}/ws/c.json`,
    JSON.stringify({
      schema_version: "1.1",
      strict: true,
      provider: "anthropic",
      calls: [{ ...(textCall("hi") as object), expect: { tools: [] } }],
    }),
  );
  const r = await runCli(
    ["agent", "run", "a.agent.yaml", "--fixture", "c.json", "hello"],
    { env: hostEnv(`${dir.path}/home`), cwd: `${dir.path}/ws` },
  );
  assert.equal(r.code, 0, r.stderr);
  assert.match(
    r.stderr,
    /^notice: MCP server calc failed, its tools are absent/m,
  );
  assert.match(
    r.stderr,
    /^notice: MCP server nope is not started: \[\[mcp_servers\]\] of the global config has no such id/m,
  );
});

Deno.test("agent run: a secret an MCP server was given is redacted from the events", async () => {
  await using dir = await tempDir();
  await setUp(dir.path, [toolCall("mcp_calc_env", {}), textCall("ok")]);
  const { r, result } = await runAgent(dir.path, "env");
  assert.equal(r.code, 0, r.stderr);
  assert.ok(result?.type === "agent:tool_result" && result.success);
  // The server had it (the name is there), the events never show it.
  assert.match(result.outputSummary, /CALC_TOKEN/);
  assert.ok(!r.stdout.includes(TOKEN));
});

Deno.test("a stdio server written in an agent file is not spawned until approved with relavium trust", async () => {
  await using dir = await tempDir();
  const ws = `${dir.path}/ws`;
  const marker = `${dir.path}/spawned`;
  const args = serverArgs(dir.path, marker);
  await write(
    `${ws}/a.agent.yaml`,
    `id: a\nmodel: claude-haiku-4-5\nprovider: anthropic\nsystem_prompt: Help.\nmcp_servers:\n  - id: local\n    transport: stdio\n    command: ${
      JSON.stringify(Deno.execPath())
    }\n    args: ${JSON.stringify(args)}\n`,
  );
  const env = hostEnv(`${dir.path}/home`);
  const cassette = (calls: unknown[]) => writeCassette(dir.path, calls);
  const run = async () => (await runAgent(dir.path, "add")).r;
  await cassette([{
    ...(textCall("no tools") as object),
    expect: { tools: [] },
  }]);
  const before = await run();
  assert.equal(before.code, 0, before.stderr);
  assert.match(
    before.stderr,
    new RegExp(
      `notice: MCP server local is not started: ${ws}/a.agent.yaml declares it to run .*, which is not approved; approve it with: relavium trust ${ws}/a.agent.yaml`,
    ),
  );
  assert.equal(await Deno.stat(marker).then(() => true, () => false), false);
  const trusted = await runCli(["trust", "a.agent.yaml"], { env, cwd: ws });
  assert.equal(trusted.code, 0, trusted.stderr);
  assert.match(
    trusted.stdout,
    new RegExp(`^Approved MCP server local of ${ws}/a\\.agent\\.yaml: `),
  );
  await cassette([toolCall("mcp_local_add", { a: 1, b: 2 }), textCall("3.")]);
  const { r: after, result } = await runAgent(dir.path, "add");
  assert.equal(after.code, 0, after.stderr);
  assert.equal(await Deno.stat(marker).then(() => true, () => false), true);
  assert.ok(result?.type === "agent:tool_result" && result.success);
  assert.match(result.outputSummary, /^3\b/);
  // A changed argument needs approval again.
  const agentText = await Deno.readTextFile(`${ws}/a.agent.yaml`);
  await write(
    `${ws}/a.agent.yaml`,
    agentText.replace('"stdio",', '"stdio", "--extra",'),
  );
  await cassette([{
    ...(textCall("no tools") as object),
    expect: { tools: [] },
  }]);
  const changed = await run();
  assert.equal(changed.code, 0, changed.stderr);
  assert.match(
    changed.stderr,
    /MCP server local is not started: .*not approved/,
  );
});

Deno.test("mcp list connects the global servers and lists their state and tools", async () => {
  await using dir = await tempDir();
  await setUp(dir.path, []);
  const config = await Deno.readTextFile(`${dir.path}/home/config.toml`);
  await write(
    `${dir.path}/home/config.toml`,
    `${config}[[mcp_servers]]\nid = "gone"\ntransport = "stdio"\ncommand = "/nonexistent/mcp"\n`,
  );
  const env = hostEnv(`${dir.path}/home`);
  const r = await runCli(["mcp", "list"], { env, cwd: `${dir.path}/ws` });
  assert.equal(r.code, 1, r.stderr);
  assert.equal(
    r.stdout.split("\n").slice(0, 2).join("\n"),
    "calc: connected, 7 tools\n  mcp_calc_add",
  );
  assert.match(r.stdout, /\ngone: failed: /);
  const json = await runCli([
    "mcp",
    "list",
    "--json",
    "--agent",
    "a.agent.yaml",
  ], {
    env,
    cwd: `${dir.path}/ws`,
  });
  assert.equal(json.code, 0, json.stderr);
  const listed = JSON.parse(json.stdout);
  listed.servers[0].tools.sort();
  assert.deepEqual(listed, {
    servers: [{ id: "calc", state: "connected", tools: [...SERVER_TOOL_IDS] }],
  });
});

Deno.test("agent run --json: session:mcp_server events say each server's state", async () => {
  await using dir = await tempDir();
  await setUp(dir.path, [
    toolCall("mcp_calc_add", { a: 1, b: 1 }),
    textCall("2."),
  ]);
  const config = await Deno.readTextFile(`${dir.path}/home/config.toml`);
  await write(
    `${dir.path}/home/config.toml`,
    `${config}[[mcp_servers]]\nid = "gone"\ntransport = "stdio"\ncommand = "/nonexistent/mcp"\n`,
  );
  await write(
    `${dir.path}/ws/a.agent.yaml`,
    "id: a\nmodel: claude-haiku-4-5\nprovider: anthropic\nsystem_prompt: Help.\nmcp_servers: [{ ref: calc }, { ref: gone }]\n",
  );
  const { r, result } = await runAgent(dir.path, "add");
  assert.equal(r.code, 0, r.stderr);
  assert.ok(result?.type === "agent:tool_result" && result.success);
  const lines = r.stdout.trim().split("\n").map((l) => JSON.parse(l));
  for (const line of lines) {
    assert.ok(parseSessionEvent(line).ok, JSON.stringify(line));
  }
  const events = parseEvents(r.stdout);
  const mcp = events.flatMap((e) =>
    e.type === "session:mcp_server" ? [{ ...e, at: events.indexOf(e) }] : []
  );
  const of = (server: string) =>
    mcp.filter((e) => e.server === server).map((e) => e.state);
  assert.deepEqual(of("calc"), ["connecting", "connected", "closed"]);
  assert.deepEqual(of("gone"), ["connecting", "failed"]);
  const connected = mcp.find((e) => e.state === "connected");
  assert.ok(connected?.state === "connected");
  assert.equal(connected.tools, SERVER_TOOL_IDS.length);
  assert.ok(connected.schemaTokens > 0);
  const failed = mcp.find((e) => e.state === "failed");
  assert.ok(failed?.state === "failed");
  assert.match(failed.reason, /\S/);
  // Published on the session's channel: after session:started, and the
  // closing before session:cancelled.
  const started = events.findIndex((e) => e.type === "session:started");
  const cancelled = events.findIndex((e) => e.type === "session:cancelled");
  assert.ok(mcp.every((e) => e.at > started && e.at < cancelled));
  assert.match(r.stderr, /MCP server gone failed, its tools are absent/);
});

Deno.test("agent run: a recorded MCP call whose server is absent ends tool_unavailable naming the server", async (t) => {
  await using dir = await tempDir();
  for (
    const [name, entry] of [
      ["failed to start", 'command = "/nonexistent/mcp-server"'],
      ["not configured", undefined],
    ] as const
  ) {
    await t.step(name, async () => {
      await write(
        `${dir.path}/home/config.toml`,
        entry === undefined
          ? ""
          : `[[mcp_servers]]\nid = "calc"\ntransport = "stdio"\n${entry}\n`,
      );
      await write(
        `${dir.path}/ws/a.agent.yaml`,
        "id: a\nmodel: claude-haiku-4-5\nprovider: anthropic\nsystem_prompt: Help.\nmcp_servers: [{ ref: calc }]\n",
      );
      await writeCassette(dir.path, [
        toolCall("mcp_calc_add", { a: 1, b: 2 }),
        textCall("3."),
      ]);
      const { r, result } = await runAgent(dir.path, "add");
      assert.equal(r.code, 1, r.stderr);
      assert.ok(result?.type === "agent:tool_result" && !result.success);
      const done = parseEvents(r.stdout).find((e) =>
        e.type === "session:turn_completed"
      );
      assert.ok(done?.type === "session:turn_completed");
      assert.equal(done.error?.code, "tool_unavailable");
      assert.equal(
        done.error?.message,
        "Tool unavailable: mcp_calc_add is a tool of the MCP server calc, which is not connected in this session",
      );
    });
  }
});

Deno.test("agent run: the notice of MCP schemas past 10 % of the window shows once on stderr, under --json too", async () => {
  await using dir = await tempDir();
  await setUp(dir.path, []);
  await write(
    `${dir.path}/ws/c.json`,
    JSON.stringify({
      schema_version: "1.1",
      provider: "anthropic",
      // The calc tools' schemas are about 115 tokens: past 10 % of this.
      context_window: 1000,
      calls: [textCall("ok")],
    }),
  );
  const { r } = await runAgent(dir.path, "hi");
  assert.equal(r.code, 0, r.stderr);
  const lines = r.stderr.split("\n").filter((l) =>
    /MCP tools' schemas/.test(l)
  );
  assert.equal(lines.length, 1, r.stderr);
  assert.match(
    lines[0] ?? "",
    /^notice: the MCP tools' schemas take about \d+ tokens, more than 10 % of the model's 1000-token window; narrow them with tools_allowlist, enabled_tools or disabled_tools$/,
  );
});
