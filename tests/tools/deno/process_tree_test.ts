/**
 * Whole-tree termination: a timed-out, aborted or finished
 * command leaves no child behind. Each script starts a sleeping
 * grandchild that inherits the output pipes and records its pid; after
 * the call the test polls `/proc/<pid>/stat` (bounded, no wall-clock
 * assertion) until the process is gone or a zombie awaiting its reaper.
 * Linux only (`/proc`).
 */
import assert from "node:assert/strict";
import { fileURLToPath } from "node:url";
import { allBuiltinTools } from "../../../tools/builtin/all.ts";
import { createDenoToolEffects } from "../../../tools/deno/effects.ts";
import { createModePolicy } from "../../../tools/modes.ts";
import type { ToolOutcome } from "../../../tools/registry.ts";
import { createToolRegistry } from "../../../tools/registry_impl.ts";
import { grantAll, makeContext, messageOf, tempDir } from "../_helpers.ts";

const linux = Deno.build.os === "linux";

/** Dead: no `/proc` entry, or a zombie (`Z`) / dead (`X`) state. */
async function isDead(pid: number): Promise<boolean> {
  const out = await new Deno.Command("cat", {
    args: [`/proc/${pid}/stat`],
    stdout: "piped",
    stderr: "null",
  }).output();
  if (!out.success) return true;
  const text = new TextDecoder().decode(out.stdout);
  const state = text.slice(text.lastIndexOf(")") + 2).split(" ")[0];
  return state === "Z" || state === "X";
}

async function waitDead(pid: number): Promise<boolean> {
  for (let i = 0; i < 200; i++) {
    if (await isDead(pid)) return true;
    await new Promise((r) => setTimeout(r, 10));
  }
  return false;
}

async function readPid(path: string): Promise<number> {
  for (let i = 0; i < 500; i++) {
    try {
      const text = (await Deno.readTextFile(path)).trim();
      if (text !== "") return Number(text);
    } catch {
      // not written yet
    }
    await new Promise((r) => setTimeout(r, 10));
  }
  throw new Error("the script never wrote its grandchild's pid");
}

function setUp(workingDir: string, timeoutMs?: number) {
  const registry = createToolRegistry({
    tools: allBuiltinTools(),
    host: createDenoToolEffects(),
    context: { workingDir, fsScopeTier: "sandboxed" },
    permissions: grantAll,
    guardrails: { allowedCommandGlobs: ["sh -c *"] },
    ...(timeoutMs === undefined
      ? {}
      : { toolConfig: { run_command: { timeoutMs } } }),
  });
  const modes = createModePolicy({ mode: "auto", interactive: false });
  function run(script: string, pidFile: string) {
    const t = makeContext({
      granted: ["run_command"],
      policy: modes.policy,
    });
    const outcome: Promise<ToolOutcome> = registry.dispatch({
      id: "c",
      name: "run_command",
      args: { command: "sh", args: ["-c", script, "sh", pidFile] },
    }, t.ctx);
    return { outcome, abort: () => t.controller.abort() };
  }
  return { run };
}

/**
 * A Linux-only test in a fresh temp folder `dir`; `pidFile` is where the
 * scripts write their grandchild's pid.
 */
function groupTest(
  name: string,
  body: (dir: { path: string }, pidFile: string) => Promise<void>,
): void {
  Deno.test({
    name,
    ignore: !linux,
    async fn() {
      await using dir = await tempDir();
      await body(dir, `${dir.path}/pid`);
    },
  });
}

groupTest(
  "run_command timeout kills the whole process group",
  async (dir, pidFile) => {
    const { run } = setUp(dir.path, 300);
    const { outcome } = run('sleep 30 & echo $! > "$1"; wait', pidFile);
    const o = await outcome;
    assert.equal(o.kind, "fatal");
    assert.match(messageOf(o), /timed out after 300 ms/);
    assert.ok(await waitDead(await readPid(pidFile)), "grandchild survived");
  },
);

groupTest(
  "run_command abort kills the whole process group",
  async (dir, pidFile) => {
    const { run } = setUp(dir.path);
    const call = run('sleep 30 & echo $! > "$1"; wait', pidFile);
    const pid = await readPid(pidFile);
    call.abort();
    const o = await call.outcome;
    assert.equal(o.kind, "fatal");
    if (o.kind === "fatal") assert.equal(o.error.code, "cancelled");
    assert.ok(await waitDead(pid), "grandchild survived");
  },
);

groupTest(
  "run_command reaps the group on a normal exit (a background child cannot hold the pipes)",
  async (dir, pidFile) => {
    const { run } = setUp(dir.path);
    const o = await run('sleep 30 & echo $! > "$1"; echo done', pidFile)
      .outcome;
    assert.equal(o.kind, "ok", messageOf(o));
    if (o.kind === "ok") assert.match(o.modelResult, /done/);
    assert.ok(await waitDead(await readPid(pidFile)), "grandchild survived");
  },
);

groupTest(
  "the Deno host kills the group under a scoped --allow-run (through the kill program)",
  async (dir, pidFile) => {
    const hostUrl =
      new URL("../../../tools/deno/effects.ts", import.meta.url).href;
    const script = `${dir.path}/spawn.ts`;
    await Deno.writeTextFile(
      script,
      `import { createDenoToolEffects } from ${JSON.stringify(hostUrl)};
const host = createDenoToolEffects();
const r = await host.spawn({
  program: "sh",
  args: ["-c", 'sleep 30 & echo $! > "$1"; wait', "sh", ${
        JSON.stringify(pidFile)
      }],
  cwd: ${JSON.stringify(dir.path)},
  env: host.readEnv(["PATH"]),
  timeoutMs: 300,
  maxOutputBytes: 1024,
  signal: new AbortController().signal,
});
Deno.exit(r.timedOut ? 0 : 3);
`,
    );
    const out = await new Deno.Command(Deno.execPath(), {
      args: [
        "run",
        "--no-prompt",
        "--no-lock",
        "--allow-run=sh,kill",
        "--allow-env=PATH",
        `--allow-read=${
          fileURLToPath(new URL("../../../tools/", import.meta.url))
        }`,
        script,
      ],
      stdout: "piped",
      stderr: "piped",
    }).output();
    assert.equal(out.code, 0, new TextDecoder().decode(out.stderr));
    assert.ok(await waitDead(await readPid(pidFile)), "grandchild survived");
  },
);

Deno.test({
  name:
    "a user's ! command (runUserCommand) is killed with its group on abort and on timeout",
  ignore: !linux,
  async fn(t) {
    for (const how of ["abort", "timeout"] as const) {
      await t.step(how, async () => {
        await using dir = await tempDir();
        const pidFile = `${dir.path}/pid`;
        const registry = createToolRegistry({
          tools: allBuiltinTools(),
          host: createDenoToolEffects(),
          context: { workingDir: dir.path, fsScopeTier: "sandboxed" },
          permissions: grantAll,
          guardrails: { allowedCommandGlobs: ["sh -c *"] },
          ...(how === "timeout"
            ? { toolConfig: { run_command: { timeoutMs: 300 } } }
            : {}),
        });
        const controller = new AbortController();
        const outcome = registry.runUserCommand({
          command: "sh",
          args: ["-c", 'sleep 30 & echo $! > "$1"; wait', "sh", pidFile],
        }, {
          signal: controller.signal,
          policy: createModePolicy({ mode: "auto", interactive: true }).policy,
          interactive: true,
          emitApproval: () => {},
          admit: () => ({ allow: true }),
        });
        const pid = await readPid(pidFile);
        if (how === "abort") controller.abort();
        const o = await outcome;
        if (how === "abort") assert.deepEqual(o, { kind: "cancelled" });
        else {
          assert.equal(o.kind, "failed");
          assert.match(o.kind === "failed" ? o.message : "", /timed out/);
        }
        assert.ok(await waitDead(pid), "grandchild survived");
      });
    }
  },
});
