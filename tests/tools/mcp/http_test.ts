import assert from "node:assert/strict";
import type { ApprovalRequest, TurnPolicy } from "../../../tools/registry.ts";
import type { McpServerEvent } from "../../../tools/mcp/registry.ts";
import type { McpServerSpec } from "../../../tools/mcp/spec.ts";
import { call, openTools } from "./_harness.ts";
import { serveHttp } from "./_server.ts";

function httpSpec(url: string, allowLocal: boolean): McpServerSpec {
  return {
    id: "calc",
    endpoint: {
      transport: "http",
      url,
      allowLocalEndpoint: allowLocal,
      headers: {},
    },
    startupTimeoutMs: 10_000,
    toolTimeoutMs: 10_000,
  };
}

Deno.test("an MCP server over streamable HTTP on loopback: list, call, annotations in the approval", async () => {
  const dir = await Deno.realPath(await Deno.makeTempDir());
  const server = await serveHttp();
  const tools = await openTools(dir, [httpSpec(server.url, true)]);
  try {
    const names = tools.advertise([], undefined).map((t) => t.name);
    assert.ok(names.includes("mcp_calc_add"));
    const asked: ApprovalRequest[] = [];
    const policy: TurnPolicy = {
      confirm: (request) => {
        asked.push(request);
        return Promise.resolve("once");
      },
    };
    const r = await call(tools, "mcp_calc_add", { a: 1, b: 41 }, { policy });
    assert.equal(r.kind === "ok" && r.modelResult, '42\n{"sum":42}');
    // Governed egress: asked, with server, tool, arguments and hints;
    // the read-only hint does not skip approval.
    assert.equal(asked.length, 1);
    assert.equal(asked[0]?.action, "egress");
    assert.deepEqual(asked[0]?.preview, {
      host: "calc",
      command: 'calc add {"a":1,"b":41} [read-only]',
    });
    assert.equal(asked[0]?.cacheable, true);
    // A destructive tool is never cached as `always`.
    await call(tools, "mcp_calc_wipe", {}, { policy });
    assert.equal(asked[1]?.cacheable, false);
    assert.match(asked[1]?.preview.command ?? "", /\[destructive\]$/);
  } finally {
    await tools.close();
    await server.close();
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("an MCP call without an approver is refused no_approval_hook and never reaches the server", async () => {
  const dir = await Deno.realPath(await Deno.makeTempDir());
  const server = await serveHttp(`${dir}/server.log`);
  const tools = await openTools(dir, [httpSpec(server.url, true)]);
  try {
    const r = await call(tools, "mcp_calc_slow", { ms: 1 }, { policy: {} });
    assert.equal(r.kind, "fatal");
    assert.equal(r.kind === "fatal" && r.error.code, "tool_denied");
    assert.match(r.kind === "fatal" ? r.error.message : "", /no_approval_hook/);
    const log = await Deno.readTextFile(`${dir}/server.log`).catch(() => "");
    assert.equal(log, "");
  } finally {
    await tools.close();
    await server.close();
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("an MCP HTTP server at a blocked address is refused before any connection", async () => {
  const dir = await Deno.realPath(await Deno.makeTempDir());
  let hits = 0;
  const http = Deno.serve(
    { hostname: "127.0.0.1", port: 0, onListen: () => {} },
    () => {
      hits++;
      return new Response("no", { status: 500 });
    },
  );
  const events: McpServerEvent[] = [];
  try {
    // Loopback without allow_local_endpoint, and a private range.
    const tools = await openTools(dir, [
      httpSpec(`http://127.0.0.1:${http.addr.port}/mcp`, false),
      { ...httpSpec("https://10.0.0.1/mcp", true), id: "lan" },
    ], events);
    assert.deepEqual(tools.advertise([], undefined), []);
    assert.deepEqual(
      events.filter((e) => e.state === "failed").map((e) => e.server).sort(),
      ["calc", "lan"],
    );
    assert.match(
      JSON.stringify(events),
      /MCP server URL refused: (only https: URLs are allowed|the address is in a blocked range)/,
    );
    assert.equal(hits, 0);
    await tools.close();
  } finally {
    await http.shutdown();
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("an MCP HTTP server is reached at the checked address, never by the name again (no DNS rebinding)", async () => {
  const dir = await Deno.realPath(await Deno.makeTempDir());
  const server = await serveHttp();
  const port = new URL(server.url).port;
  // `mcp.test` resolves nowhere (`.test` is reserved): only the checked
  // answer can lead to the server. The answer then changes to a blocked
  // address, as a rebinding DNS server would.
  let answer = "127.0.0.1";
  const asked: string[] = [];
  const connects: string[] = [];
  const tools = await openTools(
    dir,
    [httpSpec(`http://mcp.test:${port}/mcp`, true)],
    [],
    {
      resolve: (name) => {
        asked.push(name);
        return Promise.resolve([answer]);
      },
      connectTcp: (to) => {
        connects.push(`${to.hostname}:${to.port}`);
        return Deno.connect(to);
      },
    },
  );
  try {
    const r = await call(tools, "mcp_calc_add", { a: 2, b: 3 });
    assert.equal(r.kind === "ok" && r.modelResult, '5\n{"sum":5}');
    assert.ok(connects.length >= 2);
    assert.deepEqual(new Set(connects), new Set([`127.0.0.1:${port}`]));
    // Every connection was checked first, with its own answer.
    assert.ok(asked.length > connects.length);
    assert.deepEqual(new Set(asked), new Set(["mcp.test"]));
    answer = "10.1.2.3";
    const before = connects.length;
    const refused = await call(tools, "mcp_calc_add", { a: 1, b: 1 });
    assert.notEqual(refused.kind, "ok");
    assert.match(
      JSON.stringify(refused),
      /MCP server URL refused: the host name resolves to a blocked address/,
    );
    assert.equal(connects.length, before);
  } finally {
    await tools.close();
    await server.close();
    await Deno.remove(dir, { recursive: true });
  }
});
