import assert from "node:assert/strict";
import { builtinTools } from "../../tools/builtin/all.ts";
import { planFsScope } from "../../tools/sandbox/fs_scope.ts";
import {
  firstMissingPermission,
  permissionFlag,
} from "../../tools/sandbox/permission_query.ts";
import {
  broadGrantWarnings,
  derivePermissions,
  permissionFlags,
} from "../../tools/permissions.ts";
import {
  governedAction,
  isReadOnlyPolicy,
  staticPermissions,
} from "../../tools/policy.ts";
import { governedFakes } from "./_helpers.ts";

Deno.test("derivePermissions() follows the grant", async (t) => {
  const fakes = governedFakes();
  const tools = [...builtinTools(), fakes.write, fakes.run, fakes.fetch];
  await t.step(
    "read-only grant: read per root, no write, git only if granted",
    () => {
      const perms = derivePermissions({
        roots: ["/ws", "/lib"],
        granted: ["read_file"],
        tools,
        os: "posix",
        configDir: "/home/u/.relavium",
        envKeys: ["ANTHROPIC_API_KEY"],
      });
      assert.deepEqual(perms, [
        { name: "read", path: "/ws" },
        { name: "read", path: "/lib" },
        { name: "read", path: "/home/u/.relavium" },
        { name: "env", variable: "ANTHROPIC_API_KEY" },
      ]);
    },
  );
  await t.step("store dir is always readable and writable", () => {
    const perms = derivePermissions({
      roots: ["/ws"],
      granted: [],
      tools,
      os: "posix",
      storeDir: "/home/u/.relavium",
    });
    assert.deepEqual(perms, [{ name: "read", path: "/home/u/.relavium" }, {
      name: "write",
      path: "/home/u/.relavium",
    }]);
  });
  await t.step("write per root only with a writing tool", () => {
    const perms = derivePermissions({
      roots: ["/ws"],
      granted: ["fake_write"],
      tools,
      os: "posix",
    });
    assert.deepEqual(perms, [{ name: "read", path: "/ws" }, {
      name: "write",
      path: "/ws",
    }]);
  });
  await t.step(
    "run: git for git tools, allowlist heads for process tools, base env",
    () => {
      const perms = derivePermissions({
        roots: ["/ws"],
        granted: ["git_status", "fake_run"],
        tools,
        os: "posix",
        allowedCommands: ["npm test", "npm run lint", "deno task ok"],
        allowedCommandGlobs: ["cargo *", "* --version"],
      });
      assert.deepEqual(
        perms.filter((p) => p.name === "run").map((p) => permissionFlag(p)),
        [
          "--allow-run=npm",
          "--allow-run=deno",
          "--allow-run=cargo",
          "--allow-run=git",
          "--allow-run=kill",
        ],
      );
      assert.ok(perms.some((p) => p.name === "env" && p.variable === "PATH"));
    },
  );
  await t.step(
    "net: provider hosts always, allowed domains with an http tool",
    () => {
      const without = derivePermissions({
        roots: [],
        granted: [],
        tools,
        os: "posix",
        netHosts: ["api.anthropic.com:443"],
        allowedDomains: ["Example.COM."],
      });
      assert.deepEqual(without, [{
        name: "net",
        host: "api.anthropic.com:443",
      }]);
      const withHttp = derivePermissions({
        roots: [],
        granted: ["fake_http"],
        tools,
        os: "posix",
        allowedDomains: ["Example.COM."],
      });
      assert.deepEqual(
        withHttp,
        [{ name: "net", host: "0.0.0.0/0:443" }],
        "http_request connects by address: an IPv4 range, not the name",
      );
      const noDomains = derivePermissions({
        roots: [],
        granted: ["fake_http"],
        tools,
        os: "posix",
        allowedDomains: [],
        nameServers: ["10.255.255.53:53"],
      });
      assert.deepEqual(noDomains, [{ name: "net", host: "10.255.255.53:53" }]);
    },
  );
});

Deno.test("permissionFlags() prints one flag per kind plus --no-prompt", () => {
  const { flags, warnings } = permissionFlags([
    { name: "env", variable: "HOME" },
    { name: "read", path: "/ws" },
    { name: "read", path: "/ws" },
    { name: "write", path: "/a,b" },
    { name: "net", host: "api.openai.com:443" },
    { name: "run", command: "git" },
  ]);
  assert.deepEqual(flags, [
    "--allow-read=/ws",
    "--allow-run=git",
    "--allow-net=api.openai.com:443",
    "--allow-env=HOME",
    "--no-prompt",
  ]);
  assert.equal(warnings.length, 1);
  assert.deepEqual(permissionFlags([], { noPrompt: false }).flags, []);
});

Deno.test("broadGrantWarnings() flags unscoped grants and interpreters", () => {
  const w = broadGrantWarnings(
    (d) => (d.name === "read" ? "granted" : "prompt"),
    ["git", "/usr/bin/python3", "bash"],
  );
  assert.equal(w.length, 3);
  assert.match(w[0] ?? "", /unscoped --allow-read/);
});

Deno.test("firstMissingPermission() treats prompt and denied as missing", () => {
  const wanted = [{ name: "read" as const, path: "/ws" }, {
    name: "run" as const,
    command: "git",
  }];
  assert.equal(firstMissingPermission(() => "granted", wanted), undefined);
  assert.deepEqual(
    firstMissingPermission(
      (p) => (p.name === "run" ? "prompt" : "granted"),
      wanted,
    ),
    wanted[1],
  );
  assert.deepEqual(firstMissingPermission(() => "denied", wanted), wanted[0]);
});

Deno.test("every built-in: classification, static permissions, and targets for process/http tools", () => {
  const plan = planFsScope(
    { workingDir: "/ws", fsScopeTier: "sandboxed" },
    "posix",
  );
  const table: Record<string, { readOnly: boolean; perms: string[] }> = {
    read_file: { readOnly: true, perms: ["--allow-read=/ws"] },
    list_directory: { readOnly: true, perms: ["--allow-read=/ws"] },
    git_status: { readOnly: true, perms: ["--allow-run=git"] },
  };
  for (const tool of [...builtinTools(), ...Object.values(governedFakes())]) {
    const action = governedAction(tool.policy);
    if (action === "process" || tool.policy.egress === "http") {
      assert.ok(
        tool.policyTarget !== undefined,
        `${tool.id} needs a policyTarget`,
      );
    }
    const want = table[tool.id];
    if (want === undefined) continue;
    assert.equal(isReadOnlyPolicy(tool.policy), want.readOnly, tool.id);
    assert.equal(action, undefined, tool.id);
    assert.deepEqual(
      staticPermissions(tool.policy, plan).map(permissionFlag),
      want.perms,
      tool.id,
    );
  }
});
