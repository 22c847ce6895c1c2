/**
 * The mode matrix for the real governed
 * built-ins — `write_file` (fs_write), `run_command` (process),
 * `http_request` (egress) and the gated `git_commit` — on an in-memory
 * host whose effects always succeed: what each mode advertises, decides
 * and asks, with and without an interactive approver.
 */
import assert from "node:assert/strict";
import { allBuiltinTools } from "../../tools/builtin/all.ts";
import { type ToolEffects, ToolEffectsError } from "../../tools/effects.ts";
import { type ChatMode, createModePolicy } from "../../tools/modes.ts";
import type { ApprovalRequest, ToolCall } from "../../tools/registry.ts";
import { createToolRegistry } from "../../tools/registry_impl.ts";
import { grantAll, makeContext, messageOf, recordingHost } from "./_helpers.ts";

const MODES: ChatMode[] = ["ask", "plan", "accept-edits", "auto"];
const READ_ONLY = ["read_file", "list_directory", "git_status"];
const ALL = [
  ...READ_ONLY,
  "write_file",
  "run_command",
  "git_commit",
  "http_request",
];

function memoryHost(): ToolEffects {
  const notFound = (): never => {
    throw new ToolEffectsError("not_found");
  };
  const dir = {
    isFile: false,
    isDirectory: true,
    isSymlink: false,
    size: 0,
    mtimeMs: 0,
    nlink: 1,
  };
  return {
    os: "posix",
    realPath: (p) => (p === "/ws" ? Promise.resolve(p) : notFound()),
    lstat: notFound,
    stat: (p) => (p === "/ws" ? Promise.resolve(dir) : notFound()),
    readFile: notFound,
    readDir: () => Promise.resolve([]),
    readEnv: () => ({ PATH: "/usr/bin" }),
    spawn: () =>
      Promise.resolve({
        exitCode: 0,
        stdout: "",
        stderr: "",
        stdoutTruncated: false,
        stderrTruncated: false,
        durationMs: 1,
        timedOut: false,
      }),
    writeFileAtomic: () => Promise.resolve(),
    resolveDns: () => Promise.resolve(["93.184.216.34"]),
    fetch: () =>
      Promise.resolve({
        status: 200,
        headers: {},
        body: new Uint8Array(),
        bodyTruncated: false,
      }),
  };
}

const CALLS: Record<string, ToolCall> = {
  write_file: {
    id: "c",
    name: "write_file",
    args: { path: "notes.md", content: "x" },
  },
  run_command: {
    id: "c",
    name: "run_command",
    args: { command: "npm", args: ["test"] },
  },
  http_request: {
    id: "c",
    name: "http_request",
    args: { url: "https://api.example.com/v1/items?token=s3cret" },
  },
  git_commit: { id: "c", name: "git_commit", args: { message: "m" } },
};

const PREVIEWS: Record<string, ApprovalRequest["preview"]> = {
  write_file: { path: "notes.md" },
  run_command: { command: "npm test" },
  http_request: { host: "api.example.com" },
};

function setUp(
  mode: ChatMode,
  interactive: boolean,
  answer: "once" | "always" = "once",
) {
  const recorded = recordingHost(memoryHost());
  let gated = 0;
  const registry = createToolRegistry({
    tools: allBuiltinTools(),
    host: recorded.host,
    context: { workingDir: "/ws", fsScopeTier: "sandboxed" },
    permissions: grantAll,
    guardrails: {
      allowedCommands: ["npm test"],
      allowedDomains: ["api.example.com"],
    },
    gate: () => {
      gated++;
      return Promise.resolve(true);
    },
  });
  const asked: ApprovalRequest["preview"][] = [];
  const modes = createModePolicy({
    mode,
    interactive,
    isReadOnly: registry.isReadOnly,
    approver: (r) => {
      asked.push(r.preview);
      return Promise.resolve(answer);
    },
  });
  async function dispatch(call: ToolCall) {
    const t = makeContext({ granted: ALL, interactive, policy: modes.policy });
    const outcome = await registry.dispatch(call, t.ctx);
    return { outcome, events: t.approvals };
  }
  return {
    registry,
    modes,
    dispatch,
    asked,
    gated: () => gated,
    calls: recorded.calls,
  };
}

Deno.test("built-in mode matrix: advertised tools", () => {
  for (const mode of MODES) {
    const s = setUp(mode, true);
    const names = s.registry.advertise(ALL, s.modes.policy).map((d) => d.name);
    assert.deepEqual(
      names,
      mode === "plan" ? READ_ONLY : ALL,
      mode,
    );
  }
});

Deno.test("built-in mode matrix: decisions and prompts per mode × tool × interactivity", async (t) => {
  for (const mode of MODES) {
    for (const interactive of [true, false]) {
      for (const [tool, call] of Object.entries(CALLS)) {
        await t.step(`${mode} ${tool} interactive=${interactive}`, async () => {
          const s = setUp(mode, interactive);
          const { outcome, events } = await s.dispatch(call);
          if (tool === "git_commit") {
            const runs = interactive && mode !== "plan";
            assert.equal(
              outcome.kind,
              runs ? "ok" : "fatal",
              messageOf(outcome),
            );
            if (!runs) assert.match(messageOf(outcome), /gate_required/);
            assert.equal(s.gated(), runs ? 1 : 0);
            assert.deepEqual(s.asked, [], "the gate asks, nothing else");
            return;
          }
          // Decision 47: ask asks for every governed action, accept-edits
          // for all but writes in the jail, auto for none; plan refuses.
          const wouldAsk = mode === "ask" ||
            (mode === "accept-edits" && tool !== "write_file");
          if (mode === "plan") {
            assert.match(messageOf(outcome), /not allowed in plan mode/);
          } else if (wouldAsk && !interactive) {
            assert.match(
              messageOf(outcome),
              new RegExp(
                `needs approval in ${mode} mode and there is no terminal`,
              ),
            );
          } else {
            assert.equal(outcome.kind, "ok", messageOf(outcome));
          }
          const prompts = wouldAsk && interactive;
          assert.deepEqual(s.asked, prompts ? [PREVIEWS[tool]] : []);
          assert.equal(events.length, prompts ? 1 : 0);
          if (outcome.kind !== "ok") {
            assert.equal(s.calls.filter((c) => c.op !== "readEnv").length, 0);
          }
        });
      }
    }
  }
});

Deno.test("built-in mode matrix: always caches per tool id; reset forgets it and returns to ask", async () => {
  const s = setUp("ask", true, "always");
  await s.dispatch(CALLS.run_command as ToolCall);
  await s.dispatch(CALLS.run_command as ToolCall);
  await s.dispatch(CALLS.write_file as ToolCall);
  assert.deepEqual(s.asked, [PREVIEWS["run_command"], PREVIEWS["write_file"]]);
  s.modes.reset();
  assert.equal(s.modes.mode, "ask");
  await s.dispatch(CALLS.run_command as ToolCall);
  assert.equal(s.asked.length, 3);
});

Deno.test("built-in mode matrix: auto never runs an unlisted command or host", async () => {
  const s = setUp("auto", false);
  const cmd = await s.dispatch({
    id: "c",
    name: "run_command",
    args: { command: "npm", args: ["publish"] },
  });
  assert.match(messageOf(cmd.outcome), /command_not_allowed/);
  const web = await s.dispatch({
    id: "c",
    name: "http_request",
    args: { url: "https://other.example.com/" },
  });
  assert.match(messageOf(web.outcome), /domain_not_allowed/);
  assert.deepEqual(s.calls, []);
});
