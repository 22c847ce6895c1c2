/**
 * MCP for a library host: `withMcpServers` joins an inline stdio server's
 * tools to a registry, `openSession` takes it like any registry, and the
 * session governs the calls (decision 59: refused `no_approval_hook`
 * without a policy; run under `mode: "auto"`).
 */
import assert from "node:assert/strict";
import { denoRuntime, openSession } from "../../../host/mod.ts";
import { parseCassette } from "../../../llm/mod.ts";
import type { SessionEvent, SessionEventDraft } from "../../../schema/event.ts";
import { createMemoryStore } from "../../../store/mod.ts";
import {
  allBuiltinTools,
  createDenoPermissionQuery,
  createDenoToolEffects,
  createToolRegistry,
} from "../../../tools/mod.ts";
import { textCall, toolCall } from "../../attacks/_kit.ts";
import { serverArgs } from "./_harness.ts";

async function run(mode: "auto" | undefined) {
  const dir = await Deno.realPath(await Deno.makeTempDir());
  const heard: SessionEventDraft[] = [];
  const tools = await createToolRegistry({
    tools: allBuiltinTools(),
    host: createDenoToolEffects(),
    context: { workingDir: dir, fsScopeTier: "sandboxed" },
    permissions: createDenoPermissionQuery(),
  }).withMcpServers([
    {
      id: "calc",
      transport: "stdio",
      command: Deno.execPath(),
      args: serverArgs(dir),
      env: { CALC_TOKEN: "{{secrets.CALC_SECRET}}" },
    },
    { ref: "elsewhere" },
  ], {
    env: {
      get: (n) => n === "CALC_SECRET" ? "s3cret-value" : Deno.env.get(n),
    },
    onEvent: (e) => heard.push(e),
  });
  try {
    const cassette = parseCassette(
      JSON.stringify({
        schema_version: "1.1",
        provider: "anthropic",
        calls: [toolCall("mcp_calc_add", { a: 20, b: 22 }), textCall("42.")],
      }),
      "c.json",
    );
    assert.ok(cassette.ok);
    const live = openSession({
      store: createMemoryStore(),
      runtime: denoRuntime({ cassette: cassette.value, workingDir: dir }),
      agent: {
        id: "a",
        model: "claude-haiku-4-5",
        provider: "anthropic",
        system_prompt: "Add.",
      },
      tools,
      ...(mode === undefined ? {} : { settings: { mode } }),
    });
    for (const e of heard) {
      if (e.type === "session:mcp_server") live.emitMcpServer(e);
    }
    const result = await live.session.sendMessage("20 + 22?");
    live.close();
    const events: SessionEvent[] = [];
    for await (const e of live.events) events.push(e);
    return { result, events, heard };
  } finally {
    await tools.close();
    await Deno.remove(dir, { recursive: true });
  }
}

Deno.test("withMcpServers() gives a library session an MCP server's tools, governed", async (t) => {
  await t.step(
    "under mode auto the call runs and the server answers",
    async () => {
      const { result, events, heard } = await run("auto");
      assert.equal(result.kind, "completed");
      const toolResult = events.find((e) => e.type === "agent:tool_result");
      assert.ok(toolResult?.type === "agent:tool_result" && toolResult.success);
      assert.match(toolResult.outputSummary, /^42\b/);
      assert.deepEqual(
        heard.map((e) =>
          e.type === "session:mcp_server" ? [e.server, e.state] : []
        ),
        [
          ["elsewhere", "failed"],
          ["calc", "connecting"],
          ["calc", "connected"],
          ["calc", "closed"],
        ],
      );
      // Published on the session's stream.
      assert.ok(
        events.some((e) =>
          e.type === "session:mcp_server" && e.state === "connected"
        ),
      );
    },
  );
  await t.step(
    "without a policy the call is refused no_approval_hook",
    async () => {
      const { result, events } = await run(undefined);
      assert.equal(result.kind, "failed");
      const done = events.find((e) => e.type === "session:turn_completed");
      assert.ok(done?.type === "session:turn_completed");
      assert.match(done.error?.message ?? "", /\(no_approval_hook\)/);
    },
  );
});
