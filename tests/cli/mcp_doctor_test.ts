/**
 * `doctor` with MCP servers: each configured server connected and listed
 * (a failing one a problem carrying its stderr tail); `--permissions`
 * adds the `--allow-run` and `--allow-net` each server needs.
 */
import assert from "node:assert/strict";
import { runCli, tempDir, write } from "./_helpers.ts";
import { SERVER_TOOL_IDS, serverArgs } from "../tools/mcp/_harness.ts";

function hostEnv(home: string): Record<string, string> {
  return {
    RELAVIUM_HOME: home,
    NO_COLOR: "1",
    PATH: Deno.env.get("PATH") ?? "",
    HOME: Deno.env.get("HOME") ?? "",
    ANTHROPIC_API_KEY: "sk-ant-test-0123456789",
  };
}

async function writeConfig(dir: string): Promise<void> {
  await write(
    `${dir}/home/config.toml`,
    [
      "[chat]",
      'default_model = "claude-haiku-4-5"',
      "",
      "[[mcp_servers]]",
      'id = "calc"',
      'transport = "stdio"',
      `command = ${JSON.stringify(Deno.execPath())}`,
      `args = ${JSON.stringify(serverArgs(dir))}`,
      "startup_timeout_ms = 30000",
      "",
      "[[mcp_servers]]",
      'id = "broken"',
      'transport = "stdio"',
      `command = ${JSON.stringify(Deno.execPath())}`,
      `args = ["eval", "console.error('boom: no database at db.sqlite'); Deno.exit(3)"]`,
      "startup_timeout_ms = 30000",
      "",
    ].join("\n"),
  );
  await Deno.mkdir(`${dir}/ws`, { recursive: true });
}

Deno.test("doctor connects each MCP server and shows a failing one's stderr tail", async () => {
  await using dir = await tempDir();
  await writeConfig(dir.path);
  const env = hostEnv(`${dir.path}/home`);
  const r = await runCli(["doctor"], { env, cwd: `${dir.path}/ws` });
  assert.equal(r.code, 1, r.stderr);
  assert.match(r.stdout, /\nmcp\n {2}calc {9}connected, 7 tools\n/);
  assert.match(r.stdout, /\n {2}broken {7}failed: .*boom: no database/);
  assert.match(
    r.stderr,
    /^problem: MCP server broken is not reachable: .*stderr: boom: no database at db\.sqlite/m,
  );
  const json = await runCli(["doctor", "--json"], {
    env,
    cwd: `${dir.path}/ws`,
  });
  const report = JSON.parse(json.stdout);
  assert.equal(report.ok, false);
  report.mcp[0].tools.sort();
  assert.deepEqual(report.mcp[0], {
    id: "calc",
    state: "connected",
    tools: [...SERVER_TOOL_IDS],
  });
  assert.equal(report.mcp[1].state, "failed");
  assert.match(report.mcp[1].reason, /boom: no database/);
});

Deno.test("doctor --permissions adds each MCP server's --allow-run and --allow-net", async () => {
  await using dir = await tempDir();
  await writeConfig(dir.path);
  const env = hostEnv(`${dir.path}/home`);
  const all = await runCli(["doctor", "--permissions", "--json"], {
    env,
    cwd: `${dir.path}/ws`,
  });
  const flags: string[] = JSON.parse(all.stdout).permissions.flags;
  const run = flags.find((f) => f.startsWith("--allow-run="));
  assert.ok(run !== undefined, flags.join(" "));
  assert.ok(run.split(/[=,]/).includes(Deno.execPath()), run);
  assert.ok(run.split(/[=,]/).includes("kill"), run);
  // An agent's inline HTTP server: its host is allowed, and a loopback
  // one it may reach stays out of --deny-net.
  await write(
    `${dir.path}/ws/b.agent.yaml`,
    "id: b\nmodel: claude-haiku-4-5\nprovider: anthropic\nsystem_prompt: Help.\nmcp_servers:\n  - { id: web, transport: http, url: 'http://127.0.0.1:9/mcp', allow_local_endpoint: true }\n",
  );
  const agent = await runCli(
    ["doctor", "--permissions", "--json", "--agent", "b.agent.yaml"],
    { env, cwd: `${dir.path}/ws` },
  );
  const report = JSON.parse(agent.stdout);
  const net = report.permissions.flags.find((f: string) =>
    f.startsWith("--allow-net=")
  );
  assert.ok(net?.split(/[=,]/).includes("127.0.0.1:9"), net);
  assert.equal(
    report.permissions.flags.some((f: string) =>
      f.startsWith("--allow-run=") && f.includes(Deno.execPath())
    ),
    false,
  );
  // It does not answer: doctor says so.
  assert.equal(report.mcp[0].state, "failed");
  const deny = report.permissions.flags.find((f: string) =>
    f.startsWith("--deny-net=")
  );
  // The loopback range is denied around 127.0.0.1, not as a whole.
  const denied = String(deny).split(/[=,]/);
  assert.equal(denied.includes("127.0.0.0/8"), false, deny);
  assert.ok(denied.includes("127.0.0.2/31"), deny);
  // A server by name is connected to at its checked address: the grant is
  // the address range on its port, never the name.
  await write(
    `${dir.path}/ws/c.agent.yaml`,
    "id: c\nmodel: claude-haiku-4-5\nprovider: anthropic\nsystem_prompt: Help.\nmcp_servers:\n  - { id: web, transport: http, url: 'https://mcp.example.test:8443/mcp' }\n",
  );
  const named = JSON.parse(
    (await runCli(
      ["doctor", "--permissions", "--json", "--agent", "c.agent.yaml"],
      { env, cwd: `${dir.path}/ws` },
    )).stdout,
  );
  const namedNet: string[] = String(
    named.permissions.flags.find((f: string) => f.startsWith("--allow-net=")),
  ).split(/[=,]/);
  assert.ok(namedNet.includes("0.0.0.0/0:8443"), namedNet.join(","));
  assert.equal(namedNet.includes("mcp.example.test:8443"), false);
});
