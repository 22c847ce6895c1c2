/**
 * `tool_timeout_ms` reaches the SDK on every call, above its own 60 s
 * default too: the options `callTool` receives, the request timer the SDK
 * arms from them, and a call that outlives nothing but the default.
 */
import assert from "node:assert/strict";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { call, withStdioTools } from "./_harness.ts";

Deno.test("tool_timeout_ms above 60 s reaches callTool and the SDK's request timer", async () => {
  await withStdioTools({ toolTimeoutMs: 61_000 }, async (tools) => {
    const seen: unknown[] = [];
    const delays: number[] = [];
    const callTool = Client.prototype.callTool;
    const realSetTimeout = globalThis.setTimeout;
    Client.prototype.callTool = function (
      this: Client,
      ...args: Parameters<Client["callTool"]>
    ) {
      seen.push(args[2]);
      return callTool.apply(this, args);
    };
    // The SDK arms its request timeout with setTimeout(…, timeout).
    globalThis.setTimeout = ((fn: () => void, ms?: number, ...rest: []) => {
      if (typeof ms === "number") delays.push(ms);
      return realSetTimeout(fn, ms, ...rest);
    }) as typeof setTimeout;
    let r;
    try {
      // Answers after 1 s: well inside either limit.
      r = await call(tools, "mcp_calc_slow", { ms: 1_000 });
    } finally {
      Client.prototype.callTool = callTool;
      globalThis.setTimeout = realSetTimeout;
    }
    assert.equal(r.kind, "ok");
    assert.equal(seen.length, 1);
    const options = seen[0] as { timeout?: number; signal?: unknown };
    assert.equal(options.timeout, 61_000);
    assert.ok(options.signal instanceof AbortSignal);
    assert.ok(delays.includes(61_000), `timers armed: ${delays.join(", ")}`);
    assert.equal(delays.includes(60_000), false);
  });
});
