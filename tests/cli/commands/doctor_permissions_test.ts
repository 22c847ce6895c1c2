/**
 * `doctor --permissions`: the grant follows the agent's
 * tools (and what the REPL adds), `kill` rides with scoped run grants,
 * the resolver's `:53` with `http_request`, `--deny-net` keeps the SSRF
 * ranges minus what must stay reachable, and warnings name interpreters.
 */
import assert from "node:assert/strict";
import { denyNetExcept } from "../../../cli/commands/deny_net.ts";
import { advisePermissions } from "../../../cli/commands/doctor_permissions.ts";
import { SSRF_DENY_NET } from "../../../tools/sandbox/ssrf.ts";
import { runProbe } from "../../tools/fixtures/run_probe.ts";
import {
  loadTrustedConfig as loadCliConfig,
  runCli,
  tempDir,
  write,
} from "../_helpers.ts";

function flag(flags: string[], name: string): string[] {
  const f = flags.find((x) => x.startsWith(`--${name}=`));
  return f === undefined ? [] : f.slice(name.length + 3).split(",");
}

async function advise(
  dir: string,
  options: { project?: string; tools?: string[]; nameServers?: string[] },
) {
  if (options.project !== undefined) {
    await write(`${dir}/.relavium/project.toml`, options.project);
  }
  const cfg = await loadCliConfig({
    cwd: dir,
    env: (n) => (n === "RELAVIUM_HOME" ? `${dir}/rh` : undefined),
  });
  assert.ok(cfg.ok, cfg.ok ? "" : cfg.error.message);
  if (!cfg.ok) throw new Error("config");
  return advisePermissions(cfg.value, dir, () => "prompt", {
    ...(options.tools === undefined ? {} : { tools: options.tools }),
    ...(options.nameServers === undefined
      ? {}
      : { nameServers: options.nameServers }),
  });
}

Deno.test("denyNetExcept() splits a range around a kept address and nothing else", () => {
  const { deny, warnings } = denyNetExcept(["10.255.255.53"]);
  assert.deepEqual(warnings, []);
  const ten = deny.filter((d) => d.startsWith("10."));
  assert.equal(ten.length, 24);
  assert.ok(!ten.includes("10.255.255.53/32"));
  assert.ok(ten.includes("10.255.255.52/32"));
  assert.ok(ten.includes("10.0.0.0/9"));
  // Every other base entry is untouched.
  for (const d of SSRF_DENY_NET.filter((d) => d !== "10.0.0.0/8")) {
    assert.ok(deny.includes(d), d);
  }
  // Coverage: the split blocks plus the kept address are exactly 10/8.
  const size = ten.reduce(
    (n, c) => n + 2 ** (32 - Number(c.split("/")[1])),
    0,
  );
  assert.equal(size + 1, 2 ** 24);
});

Deno.test("denyNetExcept() handles localhost, IPv6 and names", () => {
  const local = denyNetExcept(["localhost"]);
  assert.ok(!local.deny.includes("127.0.0.0/8"));
  assert.ok(!local.deny.includes("[::1]"));
  assert.ok(local.deny.includes("127.0.0.0/32"));
  assert.ok(local.deny.includes("[::]"));
  const v6 = denyNetExcept(["[::1]"]);
  assert.ok(!v6.deny.includes("[::1]") && v6.deny.includes("127.0.0.0/8"));
  const named = denyNetExcept(["gpu-box.lan"]);
  assert.deepEqual(named.deny, [...SSRF_DENY_NET]);
  assert.match(named.warnings[0] ?? "", /gpu-box\.lan/);
  const two = denyNetExcept(["192.168.1.10", "192.168.1.11"]);
  assert.ok(!two.deny.some((d) => d === "192.168.1.10/32"));
  assert.ok(!two.deny.some((d) => d === "192.168.1.11/32"));
  assert.ok(two.deny.includes("192.168.1.8/31"));
});

Deno.test("advisePermissions() follows the agent's tools", async (t) => {
  await t.step("the built-in agent: git, no kill, no write", async () => {
    await using dir = await tempDir();
    const a = await advise(dir.path, {});
    assert.deepEqual(flag(a.flags, "allow-run"), ["git"]);
    assert.deepEqual(flag(a.flags, "allow-write"), [`${dir.path}/rh`]);
    assert.deepEqual(flag(a.flags, "deny-net"), [...SSRF_DENY_NET]);
  });
  await t.step("run_command: allowlisted programs and kill", async () => {
    await using dir = await tempDir();
    const a = await advise(dir.path, {
      project:
        '[chat]\nallowed_commands = ["deno task test", "bash -c make"]\nallowed_command_globs = ["wc -l *"]\n',
      tools: ["read_file", "run_command"],
    });
    assert.deepEqual(flag(a.flags, "allow-run"), [
      "deno",
      "bash",
      "wc",
      "kill",
    ]);
    assert.ok(flag(a.flags, "allow-env").includes("PATH"));
    assert.ok(a.warnings.some((w) => /Allowlisting bash/.test(w)));
    assert.ok(a.warnings.some((w) => /Allowlisting deno/.test(w)));
  });
  await t.step(
    "an allowlist alone adds run_command for ! commands",
    async () => {
      await using dir = await tempDir();
      const a = await advise(dir.path, {
        project: '[chat]\nallowed_commands = ["make"]\n',
        tools: [],
      });
      assert.deepEqual(flag(a.flags, "allow-run"), ["make", "kill"]);
      assert.ok(flag(a.flags, "allow-read").includes(dir.path), "@ reads");
    },
  );
  await t.step("write_file: write on the workspace", async () => {
    await using dir = await tempDir();
    const a = await advise(dir.path, { tools: ["write_file"] });
    assert.deepEqual(flag(a.flags, "allow-write"), [
      dir.path,
      `${dir.path}/rh`,
    ]);
  });
  await t.step(
    "http_request: domains, resolvers, deny-net around them",
    async () => {
      await using dir = await tempDir();
      const a = await advise(dir.path, {
        project: '[chat]\nallowed_domains = ["api.github.com"]\n',
        tools: ["http_request"],
        nameServers: ["10.255.255.53:53"],
      });
      const net = flag(a.flags, "allow-net");
      assert.ok(net.includes("0.0.0.0/0:443"), "connects by address");
      assert.ok(!net.includes("api.github.com:443"), "a name grant is useless");
      assert.ok(net.includes("10.255.255.53:53"));
      assert.ok(a.warnings.some((w) => /IPv6-only host/.test(w)));
      const deny = flag(a.flags, "deny-net");
      assert.ok(!deny.includes("10.0.0.0/8") && deny.includes("10.0.0.0/9"));
      assert.ok(deny.includes("127.0.0.0/8"));
    },
  );
  await t.step("an allow_local provider stays reachable", async () => {
    await using dir = await tempDir();
    const a = await advise(dir.path, {
      project:
        '[[providers]]\nid = "ollama"\nkind = "openai-compatible"\nbase_url = "http://127.0.0.1:11434/v1"\nallow_local = true\n',
    });
    assert.ok(flag(a.flags, "allow-net").includes("127.0.0.1:11434"));
    const deny = flag(a.flags, "deny-net");
    assert.ok(!deny.includes("127.0.0.0/8"));
    assert.ok(deny.includes("127.0.0.0/32") && deny.includes("127.0.0.2/31"));
  });
});

Deno.test("doctor --permissions --agent: an unknown agent is a problem (exit 1)", async () => {
  await using dir = await tempDir();
  const r = await runCli(
    ["doctor", "--permissions", "--agent", "missing.agent.yaml", "--json"],
    {
      env: { RELAVIUM_HOME: `${dir.path}/rh`, ANTHROPIC_API_KEY: "k" },
      cwd: dir.path,
    },
  );
  assert.equal(r.code, 1);
  const report = JSON.parse(r.stdout);
  assert.equal(report.permissions, undefined);
  assert.equal(report.problems.length, 1);
});

Deno.test("the net flags doctor prints for http_request grant the connect by address, and --deny-net still wins", async () => {
  await using dir = await tempDir();
  const a = await advise(dir.path, {
    project: '[chat]\nallowed_domains = ["pinned.test"]\n',
    tools: ["http_request"],
    nameServers: ["10.255.255.53:53"],
  });
  const net = a.flags.filter((f) =>
    f.startsWith("--allow-net=") || f.startsWith("--deny-net=") ||
    f === "--no-prompt"
  );
  assert.equal(net.length, 3);
  // What http_request queries right before its effect (no request made).
  assert.equal(
    await runProbe(net, [
      "query",
      "93.184.215.14:443",
      "10.255.255.53:53",
      "pinned.test:443",
      "93.184.215.14:80",
    ]),
    "93.184.215.14:443=granted 10.255.255.53:53=granted pinned.test:443=prompt 93.184.215.14:80=prompt",
  );
  // The test-only switch lets the app pass 127.0.0.1; Deno refuses the
  // connect (port 443, so only --deny-net can stop it).
  assert.equal(await runProbe(net, ["443"]), "fatal tool_unavailable");
});

Deno.test("doctor --permissions --agent grants only the agent's providers and names the script by its absolute path", async () => {
  await using dir = await tempDir();
  await write(
    `${dir.path}/.relavium/project.toml`,
    '[[providers]]\nid = "ollama"\nkind = "openai-compatible"\nbase_url = "http://127.0.0.1:11434/v1"\nallow_local = true\n\n[[providers]]\nid = "other"\nkind = "openai-compatible"\nbase_url = "https://llm.example.com/v1"\n',
  );
  await write(
    `${dir.path}/local.agent.yaml`,
    "id: local\nname: Local\nmodel: llama3\nprovider: ollama\nsystem_prompt: Be terse.\n",
  );
  const env = { RELAVIUM_HOME: `${dir.path}/rh`, ANTHROPIC_API_KEY: "k" };
  const json = await runCli(
    ["doctor", "--permissions", "--agent", "local.agent.yaml", "--json"],
    { env, cwd: dir.path },
  );
  const report = JSON.parse(json.stdout);
  assert.deepEqual(flag(report.permissions.flags, "allow-net"), [
    "127.0.0.1:11434",
  ], "no built-in host, no other entry's host");
  const script: string = report.permissions.script;
  assert.ok(script.startsWith("/") && script.endsWith("/cli.ts"), script);
  await Deno.stat(script);
  // Without an agent: the default provider and every entry with a URL.
  const all = await runCli(["doctor", "--permissions", "--json"], {
    env,
    cwd: dir.path,
  });
  const hosts = flag(JSON.parse(all.stdout).permissions.flags, "allow-net");
  assert.ok(hosts.includes("api.anthropic.com:443"), hosts.join(","));
  assert.ok(hosts.includes("llm.example.com:443"));
  const plain = await runCli(
    ["doctor", "--permissions", "--agent", "local.agent.yaml"],
    { env, cwd: dir.path },
  );
  assert.ok(plain.stdout.includes(` ${script}\n`), plain.stdout);
});
