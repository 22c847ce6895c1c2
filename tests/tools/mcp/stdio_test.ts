import assert from "node:assert/strict";
import { baseEnvKeys } from "../../../tools/sandbox/child_env.ts";
import { call, SERVER_TOOL_IDS, withStdioTools } from "./_harness.ts";

/** The server's log once it matches `want` (polled, at most ~10 s). */
async function logOnce(dir: string, want: RegExp): Promise<string> {
  let log = "";
  for (let i = 0; i < 200 && !want.test(log); i++) {
    await new Promise((r) => setTimeout(r, 50));
    log = await Deno.readTextFile(`${dir}/server.log`).catch(() => "");
  }
  return log;
}

Deno.test("openMcpTools() lists a stdio server's tools and calls them", async () => {
  await withStdioTools({}, async (tools) => {
    const names = tools.advertise([], undefined).map((t) => t.name);
    assert.deepEqual(names.sort(), SERVER_TOOL_IDS);
    const add = tools.advertise([], undefined).find((t) =>
      t.name === "mcp_calc_add"
    );
    assert.equal(add?.description, "Add two numbers");
    assert.equal(add?.parameters["$schema"], undefined);
    assert.equal(add?.parameters["type"], "object");
    const r = await call(tools, "mcp_calc_add", { a: 2, b: 3 });
    assert.equal(r.kind, "ok");
    // The text part and the structured content.
    assert.equal(r.kind === "ok" && r.modelResult, '5\n{"sum":5}');
    // The top-level check: a missing key goes back to the model.
    const bad = await call(tools, "mcp_calc_add", { a: 2 });
    assert.equal(bad.kind, "feedback");
  });
});

Deno.test("an MCP isError result goes back to the model as the tool's error", async () => {
  await withStdioTools({}, async (tools) => {
    const r = await call(tools, "mcp_calc_fail", {});
    assert.equal(r.kind, "ok");
    assert.equal(
      r.kind === "ok" && r.modelResult,
      "The tool reported an error:\nthe disk is on fire",
    );
  });
});

Deno.test("an MCP call past tool_timeout_ms ends as a timeout", async () => {
  await withStdioTools({ toolTimeoutMs: 500 }, async (tools) => {
    const r = await call(tools, "mcp_calc_slow", { ms: 20_000 });
    assert.equal(r.kind, "fatal");
    assert.equal(r.kind === "fatal" && r.error.code, "tool_failed");
    assert.match(
      r.kind === "fatal" ? r.error.message : "",
      /timed out after 500 ms/,
    );
  });
});

Deno.test("a turn abort cancels the MCP call on the server", async () => {
  await withStdioTools({}, async (tools, dir) => {
    const abort = new AbortController();
    const pending = call(tools, "mcp_calc_slow", { ms: 20_000 }, {
      signal: abort.signal,
    });
    // Abort once the server has the call.
    assert.match(await logOnce(dir, /started/), /started/);
    abort.abort();
    const r = await pending;
    assert.equal(r.kind, "fatal");
    assert.equal(r.kind === "fatal" && r.outcome, "cancelled");
    assert.match(await logOnce(dir, /cancelled/), /started\ncancelled /);
  });
});

Deno.test("a 1 MiB MCP result is bounded with the notice", async () => {
  await withStdioTools({}, async (tools) => {
    const r = await call(tools, "mcp_calc_big", {});
    assert.equal(r.kind, "ok");
    const text = r.kind === "ok" ? r.modelResult : "";
    assert.ok(new TextEncoder().encode(text).length <= 50 * 1024);
    assert.match(text, /\[… truncated: 1048576 bytes \/ 1 lines;/);
  });
});

Deno.test("a stdio MCP server's environment holds only the base keys and its own", async () => {
  Deno.env.set("RELAVIUM_TEST_LEAK", "leaked");
  await withStdioTools({ env: { CALC_TOKEN: "t0k" } }, async (tools) => {
    try {
      const r = await call(tools, "mcp_calc_env", {});
      assert.equal(r.kind, "ok");
      const env = JSON.parse(r.kind === "ok" ? r.modelResult : "{}");
      const allowed = new Set([...baseEnvKeys("posix"), "CALC_TOKEN"]);
      assert.deepEqual(Object.keys(env).filter((k) => !allowed.has(k)), []);
      assert.equal(env.CALC_TOKEN, "t0k");
      assert.equal(env.RELAVIUM_TEST_LEAK, undefined);
    } finally {
      Deno.env.delete("RELAVIUM_TEST_LEAK");
    }
  });
});

Deno.test("list_changed applies at the next turn, not within the current one", async () => {
  await withStdioTools({}, async (tools) => {
    const turn1 = tools.advertise([], undefined).map((t) => t.name);
    assert.ok(!turn1.includes("mcp_calc_extra"));
    const r = await call(tools, "mcp_calc_grow", {});
    assert.equal(r.kind, "ok");
    await tools.settled();
    // Still turn 1: the new tool is not callable yet.
    const early = await call(tools, "mcp_calc_extra", {});
    assert.equal(early.kind, "feedback");
    // Turn 2 starts with advertise: the new tool is there.
    const turn2 = tools.advertise([], undefined).map((t) => t.name);
    assert.ok(turn2.includes("mcp_calc_extra"));
    const late = await call(tools, "mcp_calc_extra", {});
    assert.equal(late.kind === "ok" && late.modelResult, "extra");
  });
});
