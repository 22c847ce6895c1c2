import assert from "node:assert/strict";
import { loadCliConfig } from "../../../cli/config/config.ts";
import { resolveMcpServers } from "../../../cli/run/mcp_resolve.ts";
import { wireMcp } from "../../../cli/run/mcp_wiring.ts";
import { createToolRegistry } from "../../../tools/registry_impl.ts";
import {
  createDenoPermissionQuery,
  createDenoToolEffects,
} from "../../../tools/deno/effects.ts";
import { stdioSpec } from "../../tools/mcp/_harness.ts";
import { parseAgent } from "../../../schema/agent.ts";
import { tempDir, write } from "../_helpers.ts";

Deno.test("resolveMcpServers() joins the agent's servers to the global entries, narrowed by the project", async () => {
  await using dir = await tempDir();
  const home = `${dir.path}/home`;
  const ws = `${dir.path}/ws`;
  await write(
    `${home}/config.toml`,
    [
      "[[mcp_servers]]",
      'id = "calc"',
      'transport = "stdio"',
      'command = "calc-server"',
      'env = { TOKEN = "{{secrets.CALC_TOKEN}}", MODE = "fast" }',
      'disabled_tools = ["wipe"]',
      "tool_timeout_ms = 500",
      "[[mcp_servers]]",
      'id = "web"',
      'transport = "http"',
      'url = "https://mcp.example.com/mcp"',
      'bearer_token_env = "WEB_TOKEN"',
      "[[mcp_servers]]",
      'id = "off"',
      'transport = "http"',
      'url = "https://off.example.com/mcp"',
      "[[mcp_servers]]",
      'id = "away"',
      'transport = "stdio"',
      'command = "x"',
      'cwd = "../elsewhere"',
      "",
    ].join("\n"),
  );
  await write(
    `${ws}/.relavium/project.toml`,
    '[[mcp_servers]]\nid = "calc"\ndisabled_tools = ["grow"]\n[[mcp_servers]]\nid = "off"\nenabled = false\n',
  );
  const env = (n: string): string | undefined =>
    ({ RELAVIUM_HOME: home, CALC_TOKEN: "s3cret" } as Record<string, string>)[
      n
    ];
  const config = await loadCliConfig({ cwd: ws, env });
  assert.ok(config.ok, config.ok ? "" : config.error.message);
  const agent = parseAgent({
    id: "a",
    model: "m",
    provider: "openai",
    system_prompt: "hi",
    mcp_servers: [
      { ref: "calc", tools_allowlist: ["add", "grow"] },
      { ref: "web" },
      { ref: "off" },
      { ref: "away" },
      { ref: "nope" },
      { id: "local", transport: "stdio", command: "evil" },
      { id: "remote", transport: "http", url: "https://r.example.com/mcp" },
    ],
  }, "a.agent.yaml");
  assert.ok(agent.ok);
  const { servers, notices, secrets } = resolveMcpServers({
    agent: agent.value,
    config: config.value,
    workingDir: ws,
    env,
  });
  assert.deepEqual(servers.map((s) => s.id), ["calc", "remote"]);
  // Values read from the environment are screened like keys.
  assert.deepEqual(secrets, ["s3cret"]);
  assert.deepEqual(servers[0], {
    id: "calc",
    endpoint: {
      transport: "stdio",
      command: "calc-server",
      args: [],
      env: { TOKEN: "s3cret", MODE: "fast" },
      cwd: ws,
    },
    startupTimeoutMs: 10_000,
    toolTimeoutMs: 500,
    disabledTools: ["wipe", "grow"],
    toolsAllowlist: ["add", "grow"],
  });
  assert.deepEqual(notices, [
    "MCP server web is not started: the environment variable WEB_TOKEN is not set",
    "MCP server off is not started: a project file turns it off",
    "MCP server away is not started: its cwd is outside the workspace",
    "MCP server nope is not started: [[mcp_servers]] of the global config has no such id",
    "MCP server local is not started: the agent a declares it to run evil, which is not approved; declare it in [[mcp_servers]] of the global config and name it with { ref: local }",
  ]);
});

Deno.test("wireMcp() notices MCP schemas past 10 % of the model's window, once", async () => {
  await using dir = await tempDir();
  const notices: string[] = [];
  const open = (windowTokens: number) =>
    wireMcp({
      servers: [stdioSpec(dir.path)],
      env: (n) => Deno.env.get(n),
    }, {
      build: (extra) =>
        createToolRegistry({
          tools: extra,
          host: createDenoToolEffects(),
          context: { workingDir: dir.path, fsScopeTier: "sandboxed" },
          permissions: createDenoPermissionQuery(),
        }),
      notice: (line) => void notices.push(line),
      windowTokens,
    });
  const roomy = await open(1_000_000);
  await roomy.close();
  assert.deepEqual(notices, []);
  const tight = await open(1000);
  await tight.close();
  assert.equal(notices.length, 1);
  assert.match(
    notices[0] ?? "",
    /^the MCP tools' schemas take about \d+ tokens, more than 10 % of the model's 1000-token window; narrow them/,
  );
});
