/**
 * `run_command`: the allowlist (bypass table, each proving the host saw
 * nothing), refused env keys, jailed `cwd`, and real runs: a from-scratch
 * environment, capped output, signal deaths, the injected clock.
 */
import assert from "node:assert/strict";
import { createDenoToolEffects } from "../../../tools/deno/effects.ts";
import type { ToolGuardrails } from "../../../tools/tool.ts";
import type { ToolEffects } from "../../../tools/effects.ts";
import type { ToolLimits } from "../../../tools/sandbox/limits.ts";
import { createModePolicy } from "../../../tools/modes.ts";
import type { ToolOutcome } from "../../../tools/registry.ts";
import { builtinRig, makeContext, messageOf, tempDir } from "../_helpers.ts";

/** The variables a child gets from the parent on POSIX (besides declared ones). */
const BASE_ENV = "PATH HOME LANG LC_ALL LC_CTYPE TZ TMPDIR TERM".split(" ");

interface Rig {
  host?: ToolEffects;
  workingDir?: string;
  guardrails?: ToolGuardrails;
  config?: Record<string, unknown>;
  limits?: Partial<ToolLimits>;
}

function rig(options: Rig = {}) {
  const recorded = builtinRig({
    workingDir: options.workingDir ?? "/ws",
    host: options.host ?? null,
    guardrails: options.guardrails,
    toolConfig: options.config && { run_command: options.config },
    limits: options.limits,
  });
  const registry = recorded.registry;
  let asked = 0;
  const modes = createModePolicy({
    mode: "accept-edits",
    interactive: true,
    isReadOnly: registry.isReadOnly,
    approver: () => {
      asked++;
      return Promise.resolve("once");
    },
  });
  async function run(command: string, args?: string[]): Promise<ToolOutcome> {
    const t = makeContext({
      granted: ["run_command"],
      interactive: true,
      policy: modes.policy,
    });
    return await registry.dispatch({
      id: "c",
      name: "run_command",
      args: args === undefined ? { command } : { command, args },
    }, t.ctx);
  }
  return {
    run,
    calls: recorded.calls,
    effects: recorded.effects,
    asked: () => asked,
  };
}

Deno.test("run_command allowlist bypasses are denied before approval; the host sees nothing", async (t) => {
  const guardrails: ToolGuardrails = {
    allowedCommands: ["git status", "npm run test"],
    allowedCommandGlobs: ["cargo test *", "git log -?"],
  };
  const rows: [string, string, string[] | undefined, "denied" | "invalid"][] = [
    [
      "one command with a shell separator",
      "git; rm -rf x",
      undefined,
      "invalid",
    ],
    ["a separator glued to the program", "git;", ["rm", "-rf", "x"], "denied"],
    ["git push when only git status is listed", "git", ["push"], "denied"],
    ["extra flag after an exact entry", "git", ["status", "--short"], "denied"],
    ["an exact entry from merged tokens", "npm", ["run test"], "denied"],
    ["case differs", "GIT", ["status"], "denied"],
    ["trailing empty argument", "git", ["status", ""], "denied"],
    ["glob needs its literal space", "cargo", ["test"], "denied"],
    ["? is exactly one character", "git", ["log", "-pp"], "denied"],
    ["a path is not the listed name", "/usr/bin/git", ["status"], "denied"],
    ["a NUL in an argument", "git", ["status\u0000"], "invalid"],
  ];
  for (const [name, command, args, want] of rows) {
    await t.step(name, async () => {
      const r = rig({ guardrails });
      const o = await r.run(command, args);
      if (want === "denied") {
        assert.equal(o.kind, "fatal");
        assert.match(messageOf(o), /command_not_allowed/);
        assert.ok(!messageOf(o).includes(command), "no command in the message");
      } else {
        assert.equal(o.kind, "feedback");
        if (o.kind === "feedback") assert.equal(o.code, "validation");
      }
      assert.deepEqual(r.calls, []);
      assert.equal(r.asked(), 0);
    });
  }
  await t.step("an empty allowlist denies everything", async () => {
    const r = rig();
    const o = await r.run("git", ["status"]);
    assert.match(messageOf(o), /command_not_allowed/);
    assert.deepEqual(r.calls, []);
  });
  await t.step("controls: exact and glob matches reach approval", async () => {
    for (
      const [command, args] of [["git", ["status"]], ["cargo", [
        "test",
        "--",
        "; rm",
      ]], ["git", ["log", "-p"]]] as const
    ) {
      const r = rig({ guardrails });
      await r.run(command, [...args]);
      assert.equal(r.asked(), 1, `${command} ${args.join(" ")}`);
    }
  });
});

Deno.test("run_command refuses declared env keys (case-insensitive, prefixes)", async (t) => {
  const keys = [
    "LD_PRELOAD",
    "ld_preload",
    "DYLD_INSERT_LIBRARIES",
    "DENO_DIR",
    "deno_cert",
    "PYTHONPATH",
    "GIT_DIR",
    "git_ssh_command",
    "PATH",
    "Path",
    "HOME",
    "BASH_ENV",
    "NODE_OPTIONS",
    "IFS",
  ];
  for (const key of keys) {
    await t.step(key, async () => {
      const r = rig({
        guardrails: { allowedCommands: ["make"] },
        config: { env: { [key]: "x" } },
      });
      const o = await r.run("make");
      assert.equal(o.kind, "feedback");
      assert.match(messageOf(o), /refused/);
      assert.deepEqual(r.calls, []);
    });
  }
});

Deno.test("run_command jails the config-only cwd lexically and after realpath", async (t) => {
  await using dir = await tempDir();
  const ws = `${dir.path}/ws`;
  await Deno.mkdir(ws);
  await Deno.mkdir(`${dir.path}/outside`);
  await Deno.symlink(`${dir.path}/outside`, `${ws}/link`);
  const rows: [string, string, RegExp][] = [
    ["..", "../outside", /escapes/],
    ["absolute outside", `${dir.path}/outside`, /escapes/],
    ["symlink to outside", "link", /symlink/],
  ];
  for (const [name, cwd, why] of rows) {
    await t.step(name, async () => {
      const r = rig({
        host: createDenoToolEffects(),
        workingDir: ws,
        guardrails: { allowedCommands: ["pwd"] },
        config: { cwd },
      });
      const o = await r.run("pwd");
      assert.equal(o.kind, "fatal");
      assert.match(messageOf(o), why);
      assert.deepEqual(r.effects(), []);
    });
  }
});

function parsed(
  o: ToolOutcome,
): { exitCode: number; stdout: string; stderr: string; durationMs: number } {
  assert.equal(o.kind, "ok", messageOf(o));
  return JSON.parse(o.kind === "ok" ? o.modelResult : "{}");
}

Deno.test("run_command runs with a from-scratch env, capped output and signal deaths as 1", async (t) => {
  await using dir = await tempDir();
  let clock = 0;
  const host = createDenoToolEffects({ now: () => (clock += 21) });
  const guardrails: ToolGuardrails = {
    allowedCommands: ["env", "definitely-not-a-program-xyz"],
    allowedCommandGlobs: ["sh -c *"],
  };
  await t.step(
    "env: base keys plus declared, nothing else; durationMs from the clock",
    async () => {
      const r = rig({
        host,
        workingDir: dir.path,
        guardrails,
        config: { env: { CI: "1" } },
      });
      const out = parsed(await r.run("env"));
      const keys = out.stdout.trim().split("\n").map((l) => l.split("=")[0]);
      const allowed = [...BASE_ENV, "CI"];
      assert.ok(keys.includes("CI"));
      assert.deepEqual(keys.filter((k) => !allowed.includes(k ?? "")), []);
      assert.equal(out.durationMs, 21);
    },
  );
  await t.step("stdout is capped with the marker", async () => {
    const r = rig({
      host,
      workingDir: dir.path,
      guardrails,
      limits: { processOutputBytes: 10 },
    });
    const out = parsed(
      await r.run("sh", ["-c", "printf 0123456789abcdef; printf err >&2"]),
    );
    assert.equal(out.stdout, "0123456789\n…[output truncated at 10 bytes]");
    assert.equal(out.stderr, "err");
  });
  await t.step(
    "exit codes pass through; a signal death reports 1",
    async () => {
      const r = rig({ host, workingDir: dir.path, guardrails });
      assert.equal(parsed(await r.run("sh", ["-c", "exit 7"])).exitCode, 7);
      assert.equal(parsed(await r.run("sh", ["-c", "kill -9 $$"])).exitCode, 1);
    },
  );
  await t.step(
    "a program missing from PATH goes back to the model",
    async () => {
      const r = rig({ host, workingDir: dir.path, guardrails });
      const o = await r.run("definitely-not-a-program-xyz");
      assert.equal(o.kind, "feedback");
      if (o.kind === "feedback") assert.equal(o.code, "tool_failed");
      assert.match(messageOf(o), /not found/);
    },
  );
});

Deno.test({
  name:
    "a relative PATH entry never resolves a program from the workspace (childEnv)",
  ignore: Deno.build.os === "windows",
  async fn() {
    // Deno resolves a relative PATH entry against its own cwd, which is the
    // workspace when the CLI runs there: reproduce that in a subprocess.
    await using dir = await tempDir();
    await Deno.writeTextFile(`${dir.path}/ls`, '#!/bin/sh\ntouch "$0.ran"\n');
    await Deno.chmod(`${dir.path}/ls`, 0o755);
    const tools = new URL("../../../tools/", import.meta.url).href;
    const script = `${dir.path}/probe.ts`;
    await Deno.writeTextFile(
      script,
      `import { createDenoToolEffects } from "${tools}deno/effects.ts";
import { childEnv } from "${tools}sandbox/child_env.ts";
const host = createDenoToolEffects();
const base = { PATH: ".:" + (Deno.env.get("PATH") ?? "/usr/bin:/bin") };
const seen = {};
for (const [name, env] of [["raw", base], ["filtered", childEnv(base)]]) {
  await host.spawn({ program: "ls", args: [], cwd: Deno.cwd(), env, timeoutMs: 5000, maxOutputBytes: 1024, signal: new AbortController().signal });
  seen[name] = await Deno.stat("ls.ran").then(() => true, () => false);
  await Deno.remove("ls.ran").catch(() => {});
}
console.log(JSON.stringify(seen));
`,
    );
    const out = await new Deno.Command(Deno.execPath(), {
      args: ["run", "--no-lock", "-A", script],
      cwd: dir.path,
      stdout: "piped",
      stderr: "piped",
    }).output();
    assert.equal(out.code, 0, new TextDecoder().decode(out.stderr));
    assert.deepEqual(JSON.parse(new TextDecoder().decode(out.stdout)), {
      raw: true,
      filtered: false,
    });
  },
});
