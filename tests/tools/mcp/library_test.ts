/**
 * MCP for a library host: `withMcpServers` joins an inline stdio server's
 * tools to a registry, `openSession` takes it like any registry, and the
 * session governs the calls (decision 59: refused `no_approval_hook`
 * without a policy; run under `mode: "auto"`). An inline `http` server
 * gets its bearer token and headers from the host's `env`, and the values
 * are withheld from its results.
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
import { APPROVE_ALL, serverArgs } from "./_harness.ts";
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { WebStandardStreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js";

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

/** A server whose one tool answers with the headers it was sent. */
async function headerServer(seen: Headers[]) {
  const server = new McpServer({ name: "who", version: "1.0.0" });
  server.registerTool("whoami", { description: "Echoes the headers" }, (
    extra: { requestInfo?: { headers: Record<string, unknown> } },
  ) => ({
    content: [{
      type: "text",
      text: `auth=${extra.requestInfo?.headers["authorization"]} team=${
        extra.requestInfo?.headers["x-team"]
      }`,
    }],
  }));
  const transport = new WebStandardStreamableHTTPServerTransport({
    sessionIdGenerator: () => crypto.randomUUID(),
  });
  await server.connect(transport);
  const http = Deno.serve(
    { hostname: "127.0.0.1", port: 0, onListen: () => {} },
    (req) => {
      seen.push(req.headers);
      return transport.handleRequest(req);
    },
  );
  return {
    url: `http://127.0.0.1:${http.addr.port}/mcp`,
    async close() {
      await server.close().catch(() => undefined);
      await http.shutdown();
    },
  };
}

Deno.test("withMcpServers() sends an http server's bearer token and headers from env, withheld from its results", async () => {
  const dir = await Deno.realPath(await Deno.makeTempDir());
  const seen: Headers[] = [];
  const server = await headerServer(seen);
  const heard: SessionEventDraft[] = [];
  const values: Record<string, string> = {
    WHO_TOKEN: "tok-9f8e7d6c5b4a",
    WHO_TEAM: "team-blue-42",
  };
  const tools = await createToolRegistry({
    tools: [],
    host: createDenoToolEffects(),
    context: { workingDir: dir, fsScopeTier: "sandboxed" },
    permissions: createDenoPermissionQuery(),
  }).withMcpServers([
    {
      id: "who",
      transport: "http",
      url: server.url,
      allow_local_endpoint: true,
      bearer_token_env: "WHO_TOKEN",
      headers_env: { "X-Team": "WHO_TEAM" },
    },
    {
      id: "unset",
      transport: "http",
      url: server.url,
      allow_local_endpoint: true,
      bearer_token_env: "NOT_SET_TOKEN",
    },
  ], { env: { get: (n) => values[n] }, onEvent: (e) => heard.push(e) });
  try {
    const r = await tools.dispatch(
      { id: "c1", name: "mcp_who_whoami", args: {} },
      {
        signal: new AbortController().signal,
        granted: [],
        policy: APPROVE_ALL,
        interactive: false,
        emitApproval: () => {},
        admit: () => ({ allow: true }),
      },
    );
    assert.equal(
      r.kind === "ok" && r.modelResult,
      "auth=Bearer [redacted] team=[redacted]",
    );
    assert.ok(seen.length > 0);
    for (const h of seen) {
      assert.equal(h.get("authorization"), "Bearer tok-9f8e7d6c5b4a");
      assert.equal(h.get("x-team"), "team-blue-42");
    }
    const failed = heard.find((e) =>
      e.type === "session:mcp_server" && e.server === "unset"
    );
    assert.ok(failed?.type === "session:mcp_server");
    assert.equal(failed.state, "failed");
    assert.match(
      JSON.stringify(failed),
      /the environment variable NOT_SET_TOKEN is not set/,
    );
    assert.doesNotMatch(JSON.stringify(heard), /tok-9f8e7d6c5b4a/);
  } finally {
    await tools.close();
    await server.close();
    await Deno.remove(dir, { recursive: true });
  }
});
