import assert from "node:assert/strict";
import { findKeyLine } from "../../../cli/config/lines.ts";
import {
  loadTrustedConfig as loadCliConfig,
  runCli,
  tempDir,
  write,
} from "../_helpers.ts";

function envOf(
  vars: Record<string, string>,
): (n: string) => string | undefined {
  return (n) => Object.hasOwn(vars, n) ? vars[n] : undefined;
}

Deno.test("loadCliConfig() layers global < workspace < project, with sources", async () => {
  await using dir = await tempDir();
  const home = `${dir.path}/home`;
  await write(
    `${home}/.relavium/config.toml`,
    `
[preferences]
default_model = "gpt-5.4-mini"
default_provider = "openai"
reasoning_effort = "low"
theme = "dark"
[chat]
max_turns = 5
auto_compact = false
`,
  );
  await write(
    `${home}/app/.relavium/workspace.toml`,
    `
[chat]
max_turns = 7
compact_threshold = 0.5
[variables]
team = "core"
focus = "speed"
`,
  );
  await write(
    `${home}/app/.relavium/project.toml`,
    `
[chat]
max_turns = 9
[variables]
focus = "security"
[defaults]
max_tokens_estimate = 2048
`,
  );
  const r = await loadCliConfig({
    cwd: `${home}/app`,
    env: envOf({ HOME: home }),
  });
  assert.ok(r.ok, r.ok ? "" : r.error.message);
  if (!r.ok) return;
  const c = r.value.resolved.chat;
  assert.deepEqual(c.maxTurns, { value: 9, source: "project" });
  assert.deepEqual(c.compactThreshold, { value: 0.5, source: "workspace" });
  assert.deepEqual(c.autoCompact, { value: false, source: "global" });
  assert.deepEqual(c.defaultModel, { value: "gpt-5.4-mini", source: "global" });
  assert.deepEqual(c.defaultProvider, { value: "openai", source: "global" });
  assert.deepEqual(c.reasoningEffort, { value: "low", source: "global" });
  assert.deepEqual(c.fsScope, { value: "sandboxed", source: "built-in" });
  assert.deepEqual(r.value.resolved.variables, {
    team: { value: "core", source: "workspace" },
    focus: { value: "security", source: "project" },
  });
  assert.deepEqual(r.value.resolved.defaults.maxTokensEstimate, {
    value: 2048,
    source: "project",
  });
  assert.equal(r.value.paths.projectRoot, `${home}/app`);
});

Deno.test("loadCliConfig() errors name the file, the line and the key path", async (t) => {
  const cases: Array<[string, string, string, string]> = [
    [
      "unknown key",
      "project",
      "[chat]\nmax_turns = 3\nmax_turn = 4\n",
      "project.toml:3: chat.max_turn: unknown key",
    ],
    [
      "wrong type",
      "project",
      '# c\n[chat]\nauto_compact = "yes"\n',
      "project.toml:3: chat.auto_compact: must be true or false",
    ],
    [
      "zero turns",
      "workspace",
      "[chat]\nmax_turns = 0\n",
      "workspace.toml:2: chat.max_turns: must be a positive integer",
    ],
    [
      "threshold",
      "project",
      "[chat]\ncompact_threshold = 1.5\n",
      "project.toml:2: chat.compact_threshold: must be at most 1",
    ],
    [
      "unknown table",
      "project",
      "[chta]\nx = 1\n",
      "project.toml:1: chta: unknown key",
    ],
    [
      "negative cost cap",
      "project",
      "[chat]\nmax_cost_microcents = -1\n",
      "project.toml:2: chat.max_cost_microcents: must not be negative",
    ],
    [
      "threshold zero",
      "workspace",
      "[chat]\ncompact_threshold = 0\n",
      "workspace.toml:2: chat.compact_threshold: must be greater than 0",
    ],
    [
      "zero max_messages",
      "project",
      "[chat]\nmax_messages = 0\n",
      "project.toml:2: chat.max_messages: must be a positive integer",
    ],
    [
      "fractional max_tokens_estimate",
      "project",
      "[defaults]\nmax_tokens_estimate = 1.5\n",
      "project.toml:2: defaults.max_tokens_estimate: must be an integer",
    ],
    [
      "api_key_env in a project",
      "project",
      '[[providers]]\nid = "a"\nkind = "openai-compatible"\nbase_url = "https://a.example/v1"\n\n[[providers]]\nid = "b"\nkind = "openai-compatible"\nbase_url = "https://b.example/v1"\napi_key_env = "MY_KEY"\n',
      "project.toml:10: providers[1].api_key_env: is only allowed in the global config",
    ],
    [
      "local base url",
      "project",
      '[[providers]]\nid = "ollama"\nkind = "openai-compatible"\nbase_url = "http://localhost:11434/v1"\n',
      "project.toml:4: providers[0].base_url: points at a local or private host: set allow_local = true",
    ],
    [
      "shadowed id",
      "project",
      '[[providers]]\nid = "openai"\nkind = "openai-compatible"\nbase_url = "https://x.example/v1"\n',
      "project.toml:2: providers[0].id: must not shadow a built-in provider id",
    ],
    [
      "dotted key",
      "project",
      'chat.fs_scope = "everything"\n',
      "project.toml:1: chat.fs_scope: must be one of sandboxed, project, full",
    ],
    [
      "preferences in a project",
      "project",
      '[preferences]\ntheme = "x"\n',
      "project.toml:1: preferences: belongs in the global config.toml",
    ],
    [
      "defaults in the global file",
      "global",
      '[defaults]\nmodel = "m"\n',
      "config.toml:1: defaults: belongs in .relavium/project.toml",
    ],
    [
      "an mcp server with a misspelled key",
      "global",
      '[[mcp_servers]]\nid = "x"\ntransport = "stdio"\ncommand = "x"\nname = "x"\n',
      "config.toml:5: mcp_servers[0].name: unknown key",
    ],
    [
      "a project file that turns an mcp server on",
      "project",
      '[[mcp_servers]]\nid = "x"\nenabled = true\n',
      "project.toml:3: mcp_servers[0].enabled: a project file may only turn a server off (false)",
    ],
    [
      "an mcp stdio server that sets PATH",
      "global",
      '[[mcp_servers]]\nid = "x"\ntransport = "stdio"\ncommand = "x"\nenv = { PATH = "/tmp" }\n',
      "mcp_servers[0].env.PATH: this variable may not be set",
    ],
    [
      "a table given as a value",
      "project",
      "chat = 3\n",
      "project.toml:1: chat: must be a table",
    ],
    [
      "a key of the global [catalog] table",
      "global",
      "[catalog]\nauto_refresh = 1\n",
      "config.toml:2: catalog.auto_refresh: must be true or false",
    ],
    [
      "an unknown update channel",
      "global",
      '# c\nupdate_channel = "nightly"\n',
      "config.toml:2: update_channel: must be stable or beta",
    ],
    [
      "a variable that is not a string",
      "project",
      '[variables]\nok = "x"\nn = 1\n',
      "project.toml:3: variables.n: must be a string",
    ],
    [
      "a timeout over the ceiling",
      "project",
      "[chat]\ncommand_timeout_ms = 120001\n",
      "project.toml:2: chat.command_timeout_ms: must be at most 120000 (the process-timeout ceiling)",
    ],
    [
      "a duplicate provider id",
      "project",
      '[[providers]]\nid = "a"\nkind = "openai-compatible"\nbase_url = "https://a.example/v1"\n\n[[providers]]\nid = "a"\nkind = "openai-compatible"\nbase_url = "https://a.example/v1"\n',
      "project.toml:7: providers[1].id: duplicate provider",
    ],
    [
      "a value in a sub-table of an array of tables",
      "project",
      '[[providers]]\nid = "a"\nkind = "openai-compatible"\nbase_url = "https://a.example/v1"\n[providers.prices.m]\ninput = -1\noutput = 1\n',
      "project.toml:6: providers[0].prices.m.input: must not be negative",
    ],
    [
      "a sub-table of the second [[providers]] entry",
      "project",
      '[[providers]]\nid = "a"\nkind = "openai-compatible"\nbase_url = "https://a.example/v1"\n[providers.prices.m]\ninput = 1\noutput = 1\n\n[[providers]]\nid = "b"\nkind = "openai-compatible"\nbase_url = "https://b.example/v1"\n[providers.prices.m]\ninput = 1\noutput = 1.5\n',
      "project.toml:15: providers[1].prices.m.output: must be an integer (micro-cents per million tokens)",
    ],
    [
      "an unknown key in a sub-table",
      "project",
      '[[providers]]\nid = "a"\nkind = "openai-compatible"\nbase_url = "https://a.example/v1"\n[providers.prices.m]\ninput = 1\noutput = 1\ncached = 2\n',
      "project.toml:8: providers[0].prices.m.cached: unknown key",
    ],
    [
      "a missing key names the sub-table's header",
      "project",
      '[[providers]]\nid = "a"\nkind = "openai-compatible"\nbase_url = "https://a.example/v1"\n\n[providers.prices.m]\ninput = 1\n',
      "project.toml:6: providers[0].prices.m.output: must be a number",
    ],
    [
      "max_tokens_param on an anthropic entry",
      "global",
      '[[providers]]\nid = "p"\nkind = "anthropic"\nbase_url = "https://p.example"\nmax_tokens_param = "max_tokens"\n',
      'config.toml:5: providers[0].max_tokens_param: applies only to kind = "openai-compatible"',
    ],
    ["syntax", "project", "[chat]\nmax_turns = = 3\n", "project.toml:2:"],
    [
      "provider without model",
      "project",
      '[chat]\ndefault_provider = "openai"\n',
      "project.toml:2: chat.default_provider: needs default_model in the same table",
    ],
    [
      "unknown default provider",
      "project",
      '[chat]\ndefault_model = "x"\ndefault_provider = "nope"\n',
      'default_provider "nope" (from the project config) is neither built in',
    ],
  ];
  for (const [name, kind, text, want] of cases) {
    await t.step(name, async () => {
      await using dir = await tempDir();
      const file = kind === "global"
        ? `${dir.path}/rh/config.toml`
        : `${dir.path}/p/.relavium/${kind}.toml`;
      await write(file, text);
      const r = await loadCliConfig({
        cwd: `${dir.path}/p`,
        env: envOf({ HOME: dir.path, RELAVIUM_HOME: `${dir.path}/rh` }),
      });
      assert.equal(r.ok, false);
      if (r.ok) return;
      assert.equal(r.error.code, "invalid_config");
      assert.ok(
        r.error.message.includes(want),
        `${r.error.message}\n  does not include\n${want}`,
      );
    });
  }
});

Deno.test("loadCliConfig() resolves the two coupled [chat] groups", async () => {
  await using dir = await tempDir();
  const home = `${dir.path}/home`;
  await write(
    `${home}/.relavium/config.toml`,
    `
[preferences]
default_model = "claude-haiku-4-5"
default_provider = "anthropic"
`,
  );
  await write(
    `${home}/p/.relavium/workspace.toml`,
    `
[chat]
allowed_commands = ["npm test"]
allowed_command_globs = ["ls *"]
allowed_domains = ["docs.example.com"]
`,
  );
  await write(
    `${home}/p/.relavium/project.toml`,
    `
[chat]
default_model = "my-local-model"
allowed_command_globs = ["wc -l *"]
`,
  );
  const r = await loadCliConfig({
    cwd: `${home}/p`,
    env: envOf({ HOME: home }),
  });
  assert.ok(r.ok);
  if (!r.ok) return;
  const c = r.value.resolved.chat;
  assert.deepEqual(c.defaultModel, {
    value: "my-local-model",
    source: "project",
  });
  assert.equal(
    c.defaultProvider,
    undefined,
    "never the global file's provider",
  );
  assert.deepEqual(c.allowedCommands, { value: [], source: "project" });
  assert.deepEqual(c.allowedCommandGlobs, {
    value: ["wc -l *"],
    source: "project",
  });
  assert.deepEqual(c.allowedDomains, {
    value: ["docs.example.com"],
    source: "workspace",
  });
});

Deno.test("loadCliConfig() merges [[providers]] by id, the higher layer replacing whole entries", async () => {
  await using dir = await tempDir();
  await write(
    `${dir.path}/rh/config.toml`,
    `
[[providers]]
id = "ollama"
kind = "openai-compatible"
base_url = "http://localhost:11434/v1/"
allow_local = true
api_key_env = "OLLAMA_KEY"

[[providers]]
id = "proxy"
kind = "anthropic"
base_url = "https://proxy.example.com"
`,
  );
  await write(
    `${dir.path}/p/.relavium/project.toml`,
    `
[[providers]]
id = "ollama"
kind = "openai-compatible"
base_url = "http://127.0.0.1:8080/v1"
allow_local = true
`,
  );
  const r = await loadCliConfig({
    cwd: `${dir.path}/p`,
    env: envOf({ HOME: dir.path, RELAVIUM_HOME: `${dir.path}/rh` }),
  });
  assert.ok(r.ok, r.ok ? "" : r.error.message);
  if (!r.ok) return;
  const byId = new Map(r.value.resolved.providers.map((p) => [p.id, p]));
  assert.deepEqual(byId.get("ollama"), {
    id: "ollama",
    kind: "openai-compatible",
    builtIn: false,
    baseUrl: "http://127.0.0.1:8080/v1",
    baseUrlSource: "project",
    allowLocal: true,
    source: "project",
  });
  assert.equal(byId.get("proxy")?.source, "global");
  assert.equal(byId.get("anthropic")?.builtIn, true);
});

Deno.test("loadCliConfig() checks RELAVIUM_<ID>_BASE_URL overrides", async () => {
  await using dir = await tempDir();
  const ok = await loadCliConfig({
    cwd: dir.path,
    env: envOf({
      HOME: dir.path,
      RELAVIUM_OPENAI_BASE_URL: "https://gw.example.com/v1/",
    }),
  });
  assert.ok(ok.ok);
  if (ok.ok) {
    const p = ok.value.resolved.providers.find((x) => x.id === "openai");
    assert.deepEqual([p?.baseUrl, p?.baseUrlSource], [
      "https://gw.example.com/v1",
      "env",
    ]);
  }
  const bad = await loadCliConfig({
    cwd: dir.path,
    env: envOf({
      HOME: dir.path,
      RELAVIUM_ANTHROPIC_BASE_URL: "http://10.0.0.5/",
    }),
  });
  assert.equal(
    bad.ok ? "" : bad.error.message.split(":")[0],
    "Invalid RELAVIUM_ANTHROPIC_BASE_URL",
  );
});

Deno.test('loadCliConfig() clamps fs_scope = "full" to project with a notice', async () => {
  await using dir = await tempDir();
  await write(
    `${dir.path}/p/.relavium/project.toml`,
    '[chat]\nfs_scope = "full"\n',
  );
  const r = await loadCliConfig({
    cwd: `${dir.path}/p`,
    env: envOf({ HOME: dir.path }),
  });
  assert.ok(r.ok);
  if (!r.ok) return;
  assert.deepEqual(r.value.resolved.chat.fsScope, {
    value: "project",
    source: "project",
  });
  assert.deepEqual(r.value.resolved.notices, [
    '[chat].fs_scope = "full" is not available in this version; using "project"',
  ]);
});

Deno.test("loadCliConfig() finds the project from below, skipping the global folder, stopping at $HOME", async () => {
  await using dir = await tempDir();
  const home = `${dir.path}/home`;
  await Deno.mkdir(`${dir.path}/.relavium`, { recursive: true }); // above $HOME: ignored
  await Deno.mkdir(`${home}/.relavium`, { recursive: true }); // the global folder
  await Deno.mkdir(`${home}/work/deep/er`, { recursive: true });
  const none = await loadCliConfig({
    cwd: `${home}/work/deep/er`,
    env: envOf({ HOME: home }),
  });
  assert.ok(none.ok);
  if (none.ok) assert.equal(none.value.paths.projectRoot, undefined);
  await Deno.mkdir(`${home}/work/.relavium`);
  const found = await loadCliConfig({
    cwd: `${home}/work/deep/er`,
    env: envOf({ HOME: home }),
  });
  assert.ok(found.ok);
  if (found.ok) {
    assert.equal(found.value.paths.projectRoot, `${home}/work`);
    assert.equal(
      found.value.paths.projectFile,
      `${home}/work/.relavium/project.toml`,
    );
  }
  // RELAVIUM_HOME is never a project folder either.
  await using other = await tempDir();
  await Deno.mkdir(`${other.path}/.relavium/sub`, { recursive: true });
  const skip = await loadCliConfig({
    cwd: `${other.path}/.relavium/sub`,
    env: envOf({ HOME: other.path, RELAVIUM_HOME: `${other.path}/.relavium` }),
  });
  assert.ok(skip.ok);
  if (skip.ok) assert.equal(skip.value.paths.projectRoot, undefined);
});

Deno.test("loadCliConfig() honours --config and RELAVIUM_HOME", async () => {
  await using dir = await tempDir();
  await write(`${dir.path}/alt.toml`, "[chat]\nmax_turns = 3\n");
  await write(`${dir.path}/rh/config.toml`, "[chat]\nmax_turns = 4\n");
  const env = envOf({ HOME: dir.path, RELAVIUM_HOME: `${dir.path}/rh` });
  const base = await loadCliConfig({ cwd: dir.path, env });
  assert.equal(base.ok && base.value.resolved.chat.maxTurns.value, 4);
  assert.equal(
    base.ok && base.value.paths.historyDb,
    `${dir.path}/rh/history.db`,
  );
  const alt = await loadCliConfig({
    cwd: dir.path,
    env,
    configFlag: "alt.toml",
  });
  assert.equal(alt.ok && alt.value.resolved.chat.maxTurns.value, 3);
  const missing = await loadCliConfig({
    cwd: dir.path,
    env,
    configFlag: "nope.toml",
  });
  assert.equal(missing.ok ? "" : missing.error.code, "not_found");
  const relative = await loadCliConfig({
    cwd: dir.path,
    env: envOf({ RELAVIUM_HOME: "rel" }),
  });
  assert.equal(relative.ok ? "" : relative.error.code, "invalid_config");
});

Deno.test("main() exits 2 on a relative RELAVIUM_HOME and on invalid config", async () => {
  await using dir = await tempDir();
  const rel = await runCli(["config", "show", "--json"], {
    env: { RELAVIUM_HOME: "x" },
    cwd: dir.path,
  });
  assert.equal(rel.code, 2);
  assert.equal(rel.stdout, "");
  assert.equal(JSON.parse(rel.stderr).code, "invalid_config");
  await write(`${dir.path}/.relavium/project.toml`, "[chat]\nbogus = 1\n");
  const bad = await runCli(["config", "show"], {
    env: { HOME: `${dir.path}/h`, NO_COLOR: "1" },
    cwd: dir.path,
  });
  assert.equal(bad.code, 2);
  assert.equal(
    bad.stderr,
    `error: Invalid config: ${dir.path}/.relavium/project.toml:2: chat.bogus: unknown key\n`,
  );
});

Deno.test("findKeyLine() skips comments and multi-line strings", () => {
  const toml = [
    "# [chat]",
    'note = """',
    "[chat]",
    "max_turns = 1",
    '"""',
    "[chat] # real",
    '"max_turns" = 2',
  ].join("\n");
  assert.equal(findKeyLine(toml, ["chat", "max_turns"]), 7);
  assert.equal(findKeyLine(toml, ["nothing"]), undefined);
});
