/**
 * The whole built-in catalog: every process and http tool has a policy
 * target (else its allowlist would be skipped), schemas are strict and
 * never advertise config-only keys, and the Deno permission layer derives
 * exactly what the granted tools need.
 */
import assert from "node:assert/strict";
import { allBuiltinTools, builtinTools } from "../../tools/builtin/all.ts";
import { governedAction } from "../../tools/policy.ts";
import { permissionFlag } from "../../tools/sandbox/permission_query.ts";
import {
  allowlistWarnings,
  derivePermissions,
  permissionFlags,
} from "../../tools/permissions.ts";
import { parseResolvConf } from "../../tools/sandbox/resolv_conf.ts";
import { createToolRegistry } from "../../tools/registry_impl.ts";
import { SSRF_DENY_NET } from "../../tools/sandbox/ssrf.ts";
import {
  fakeTool,
  grantAll,
  makeContext,
  messageOf,
  recordingHost,
} from "./_helpers.ts";

const SAMPLE_ARGS: Record<string, unknown> = {
  run_command: { command: "git", args: ["status"] },
  http_request: { url: "https://example.com/" },
  write_file: { path: "a.txt", content: "x" },
};

Deno.test("every process and http tool of the catalog has a policyTarget", () => {
  const tools = allBuiltinTools();
  const targeted = tools.filter((t) =>
    governedAction(t.policy) === "process" || t.policy.egress === "http" ||
    t.policy.fsWrite === true
  );
  assert.deepEqual(targeted.map((t) => t.id), [
    "write_file",
    "run_command",
    "http_request",
  ]);
  for (const tool of targeted) {
    assert.ok(tool.policyTarget !== undefined, tool.id);
    const parsed = tool.parse(SAMPLE_ARGS[tool.id]);
    assert.ok(parsed.ok, tool.id);
    const target = parsed.ok ? tool.policyTarget(parsed.value) : {};
    const want = tool.policy.egress === "http"
      ? "url"
      : tool.policy.fsWrite
      ? "path"
      : "command";
    assert.equal(typeof target[want], "string", tool.id);
  }
});

Deno.test("a process tool whose target is empty is denied, never run", async () => {
  const blank = fakeTool("blank_run", { spawnsProcess: true }, {
    target: () => ({}),
  });
  const { host, calls } = recordingHost();
  const registry = createToolRegistry({
    tools: [blank],
    host,
    context: { workingDir: "/ws", fsScopeTier: "sandboxed" },
    permissions: grantAll,
    guardrails: { allowedCommandGlobs: ["*"] },
  });
  const o = await registry.dispatch(
    { id: "c", name: "blank_run", args: {} },
    makeContext({ granted: ["blank_run"] }).ctx,
  );
  assert.match(messageOf(o), /command_not_allowed/);
  assert.deepEqual(blank.runs, []);
  assert.deepEqual(calls, []);
});

Deno.test("catalog schemas are strict and never advertise config-only keys", () => {
  for (const tool of allBuiltinTools()) {
    assert.equal(tool.llmParams["additionalProperties"], false, tool.id);
    const props = Object.keys(tool.llmParams["properties"] as object);
    for (const key of tool.configOnly ?? []) {
      assert.ok(!props.includes(key), `${tool.id}.${key}`);
    }
    assert.equal(
      tool.parse({ ...(SAMPLE_ARGS[tool.id] as object), unknownKey: 1 }).ok,
      false,
      tool.id,
    );
  }
  assert.deepEqual(builtinTools().map((t) => t.id), [
    "read_file",
    "list_directory",
    "git_status",
  ]);
});

Deno.test("derivePermissions() for the whole catalog follows the grant", async (t) => {
  const tools = allBuiltinTools();
  const base = {
    roots: ["/ws"],
    tools,
    os: "posix" as const,
    allowedCommands: ["npm test", "deno task ok"],
    allowedCommandGlobs: ["cargo *", "* --version"],
    allowedDomains: ["API.example.com."],
    nameServers: ["10.255.255.53:53"],
  };
  const flags = (granted: string[]): string[] =>
    derivePermissions({ ...base, granted }).filter((p) => p.name !== "env").map(
      permissionFlag,
    );
  await t.step("read-only tools: reads and git only", () => {
    assert.deepEqual(flags(["read_file", "list_directory", "git_status"]), [
      "--allow-read=/ws",
      "--allow-run=git",
    ]);
  });
  await t.step("write roots only with write_file", () => {
    assert.deepEqual(flags(["write_file"]), [
      "--allow-read=/ws",
      "--allow-write=/ws",
    ]);
  });
  await t.step(
    "run_command: allowlist heads, literal glob heads, kill for the group",
    () => {
      assert.deepEqual(flags(["run_command"]), [
        "--allow-read=/ws",
        "--allow-run=npm",
        "--allow-run=deno",
        "--allow-run=cargo",
        "--allow-run=kill",
      ]);
    },
  );
  await t.step("git_commit: git and kill", () => {
    assert.deepEqual(flags(["git_commit"]), [
      "--allow-read=/ws",
      "--allow-run=git",
      "--allow-run=kill",
    ]);
  });
  await t.step(
    "http_request: any IPv4 address on 443 (it connects by address) and the DNS resolver",
    () => {
      assert.deepEqual(flags(["http_request"]), [
        "--allow-net=0.0.0.0/0:443",
        "--allow-net=10.255.255.53:53",
      ]);
    },
  );
  await t.step("windows has no kill program", () => {
    const perms = derivePermissions({
      ...base,
      os: "windows",
      granted: ["run_command"],
    });
    assert.ok(!perms.some((p) => p.name === "run" && p.command === "kill"));
  });
});

Deno.test("permissionFlags() adds --deny-net before --no-prompt", () => {
  const { flags } = permissionFlags([{
    name: "net",
    host: "api.example.com:443",
  }], { denyNet: SSRF_DENY_NET });
  assert.equal(flags[0], "--allow-net=api.example.com:443");
  assert.match(
    flags[1] ?? "",
    /^--deny-net=0\.0\.0\.0\/8,127\.0\.0\.0\/8,.*,\[::1\],\[::\],168\.63\.129\.16\/32,.*\[fd00:ec2::254\]/,
  );
  assert.equal(flags[2], "--no-prompt");
});

Deno.test("allowlistWarnings() flags interpreters, launchers and non-literal globs", () => {
  const warnings = allowlistWarnings({
    allowedCommands: [
      "git status",
      "/usr/bin/python3 -m pytest",
      "bash -c make",
      "env FOO=1 make",
    ],
    allowedCommandGlobs: ["node *", "* --version", "npm run *"],
  });
  assert.equal(warnings.length, 5);
  for (const name of ["python3", "bash", "env", "node"]) {
    assert.ok(warnings.some((w) => w.includes(`Allowlisting ${name} `)), name);
  }
  assert.ok(warnings.some((w) => w.includes('"* --version"')));
  assert.deepEqual(allowlistWarnings({ allowedCommands: ["git status"] }), []);
});

Deno.test("parseResolvConf() keeps valid nameservers as ip:53", () => {
  const text = [
    "# comment",
    "nameserver 10.255.255.53",
    "nameserver   fe80::1",
    "nameserver not-an-ip",
    "nameserver 10.255.255.53",
    "options ndots:0",
  ].join("\n");
  assert.deepEqual(parseResolvConf(text), ["10.255.255.53:53", "[fe80::1]:53"]);
});
