/**
 * Safe by default, in the library too: a session opened with no turn
 * policy is `ask` with no approver. Read-only tools run; a write and a
 * custom tool that is not `readOnly` are refused `no_approval_hook` and
 * nothing happens; `mode: "auto"` (or a policy) is the explicit opt-in.
 * Driven as a library script would: the package's own entry points, the
 * real Deno tool effects over a temp folder, a scripted model.
 */
import assert from "node:assert/strict";
import { z } from "zod";
import {
  AgentSession,
  createMemoryStore,
  createScriptedProvider,
  denoRuntime,
  openSession,
  resumeSession,
  type SessionSettings,
  type TurnResult,
} from "../../mod.ts";
import { tool } from "../../tools/mod.ts";
import { denoTools, reply, toolCall } from "./_harness.ts";

type Opener = "AgentSession" | "openSession" | "resumeSession";

interface Run {
  results: TurnResult[];
  requests: number;
  deployed: number;
  read: TurnResult;
}

const AGENT = {
  id: "writer",
  model: "gpt-5.4-mini",
  provider: "openai",
  system_prompt: "You write.",
  tools: ["read_file", "write_file", "deploy"],
};

/** Three turns: a read, a write, then the custom tool. */
async function drive(
  opener: Opener,
  ws: string,
  settings: SessionSettings | undefined,
): Promise<Run> {
  let deployed = 0;
  const deploy = tool({
    name: "deploy",
    description: "Deploys",
    inputSchema: z.strictObject({ target: z.string() }),
    execute: () => {
      deployed++;
      return "deployed";
    },
    readOnly: false,
  });
  const runs = settings?.mode === "auto";
  const provider = createScriptedProvider({
    id: "openai",
    script: [
      toolCall("r", "read_file", { path: "seed.txt" }),
      reply("read"),
      toolCall("w", "write_file", { path: "out.txt", content: "x" }),
      ...(runs ? [reply("written")] : []),
      toolCall("d", "deploy", { target: "prod" }),
      ...(runs ? [reply("deployed")] : []),
    ],
  });
  const tools = denoTools(ws, { extra: [deploy] });
  const runtime = denoRuntime({
    resolveProvider: (id) => (id === "openai" ? provider : undefined),
    workingDir: ws,
  });
  const context = { workingDir: ws, fsScopeTier: "sandboxed" as const };
  const extra = settings === undefined ? {} : { settings };
  let session: AgentSession;
  let close = (): void => {};
  if (opener === "AgentSession") {
    session = new AgentSession({
      sessionId: "s1",
      agentRef: AGENT.id,
      agent: AGENT,
      context,
      effects: {
        clock: runtime.clock,
        ids: runtime.ids,
        resolveProvider: (id) => runtime.resolveProvider?.(id),
        keyFor: () => "",
        sleep: () => Promise.resolve(),
        tools,
      },
      ...extra,
      hooks: { emit: () => {} },
    });
    session.start();
  } else {
    const store = createMemoryStore();
    const opened = openSession({
      store,
      runtime,
      tools,
      agent: AGENT,
      context,
      ...extra,
    });
    if (opener === "openSession") {
      session = opened.session;
      close = () => opened.close();
    } else {
      const id = opened.sessionId;
      opened.close();
      const resumed = resumeSession({
        store,
        runtime,
        tools,
        sessionId: id,
        ...extra,
      });
      assert.ok(resumed.ok);
      session = resumed.value.session;
      close = () => resumed.value.close();
    }
  }
  try {
    const read = await session.sendMessage("Read seed.txt");
    const results = [
      await session.sendMessage("Write out.txt"),
      await session.sendMessage("Deploy"),
    ];
    return { results, requests: provider.requests.length, deployed, read };
  } finally {
    close();
  }
}

for (
  const opener of ["AgentSession", "openSession", "resumeSession"] as const
) {
  Deno.test(`${opener}: no turn policy is ask with no approver; mode auto runs`, async (t) => {
    await t.step("no policy: read-only runs, governed refused", async () => {
      const ws = await Deno.makeTempDir();
      try {
        await Deno.writeTextFile(`${ws}/seed.txt`, "seed");
        const run = await drive(opener, ws, undefined);
        assert.equal(run.read.kind, "completed", "read_file runs");
        for (const r of run.results) {
          assert.equal(r.kind, "failed");
          if (r.kind !== "failed") continue;
          assert.equal(r.error.code, "tool_denied");
          assert.match(r.error.message, /\(no_approval_hook\)/);
        }
        await assert.rejects(Deno.stat(`${ws}/out.txt`), Deno.errors.NotFound);
        assert.equal(run.deployed, 0);
        assert.equal(run.requests, 4, "no request after a refusal");
      } finally {
        await Deno.remove(ws, { recursive: true });
      }
    });
    await t.step('mode "auto": both run', async () => {
      const ws = await Deno.makeTempDir();
      try {
        await Deno.writeTextFile(`${ws}/seed.txt`, "seed");
        const run = await drive(opener, ws, { mode: "auto" });
        assert.deepEqual(run.results.map((r) => r.kind), [
          "completed",
          "completed",
        ]);
        assert.equal(await Deno.readTextFile(`${ws}/out.txt`), "x");
        assert.equal(run.deployed, 1);
      } finally {
        await Deno.remove(ws, { recursive: true });
      }
    });
  });
}

Deno.test("AgentSession() refuses a mode that is not a chat mode", () => {
  assert.throws(
    () =>
      new AgentSession({
        sessionId: "s1",
        agentRef: AGENT.id,
        agent: AGENT,
        context: { workingDir: "/ws", fsScopeTier: "sandboxed" },
        effects: {
          clock: { now: () => 0 },
          ids: () => "x",
          resolveProvider: () => undefined,
          keyFor: () => "",
          sleep: () => Promise.resolve(),
        },
        settings: { mode: "yolo" as NonNullable<SessionSettings["mode"]> },
        hooks: { emit: () => {} },
      }),
    { name: "TypeError", message: /Invalid mode: expected one of ask, plan/ },
  );
});

Deno.test("setTurnPolicy(undefined) goes back to the mode setting", async () => {
  const ws = await Deno.makeTempDir();
  try {
    const provider = createScriptedProvider({
      id: "openai",
      script: [
        toolCall("w", "write_file", { path: "a.txt", content: "a" }),
        toolCall("w", "write_file", { path: "b.txt", content: "b" }),
        reply("written"),
      ],
    });
    const session = new AgentSession({
      sessionId: "s1",
      agentRef: AGENT.id,
      agent: AGENT,
      context: { workingDir: ws, fsScopeTier: "sandboxed" },
      effects: {
        clock: { now: () => 0 },
        ids: () => crypto.randomUUID(),
        resolveProvider: () => provider,
        keyFor: () => "",
        sleep: () => Promise.resolve(),
        tools: denoTools(ws),
      },
      settings: { mode: "auto" },
      hooks: { emit: () => {} },
    });
    session.start();
    session.setTurnPolicy({ decide: () => ({ approve: false, reason: "no" }) });
    const refused = await session.sendMessage("a");
    assert.equal(
      refused.kind === "failed" && refused.error.code,
      "tool_denied",
    );
    session.setTurnPolicy(undefined);
    const ran = await session.sendMessage("b");
    assert.equal(ran.kind, "completed");
    assert.equal(await Deno.readTextFile(`${ws}/b.txt`), "b");
  } finally {
    await Deno.remove(ws, { recursive: true });
  }
});
