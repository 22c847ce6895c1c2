/**
 * A real MCP server written with the SDK, for the tests: over stdio when
 * run as `deno run _server.ts stdio [log [marker]]`, or served over streamable
 * HTTP by {@linkcode serveHttp}. `log` (a file) receives one line per
 * cancellation the server sees.
 */
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { StdioServerTransport } from "@modelcontextprotocol/sdk/server/stdio.js";
import { WebStandardStreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js";
import { z } from "zod";

/** Builds the test server. */
export function testServer(log?: string): McpServer {
  const server = new McpServer({ name: "calc", version: "1.0.0" });
  server.registerTool("add", {
    description: "Add two numbers",
    inputSchema: { a: z.number(), b: z.number() },
    outputSchema: { sum: z.number() },
    annotations: { readOnlyHint: true, title: "Adder" },
  }, ({ a, b }: { a: number; b: number }) => ({
    content: [{ type: "text", text: `${a + b}` }],
    structuredContent: { sum: a + b },
  }));
  server.registerTool("fail", {
    description: "Always fails",
    inputSchema: {},
  }, () => ({
    content: [{ type: "text", text: "the disk is on fire" }],
    isError: true,
  }));
  server.registerTool("slow", {
    description: "Waits ms milliseconds",
    inputSchema: { ms: z.number() },
  }, async (
    { ms }: { ms: number },
    extra: { signal: AbortSignal; requestId: string | number },
  ) => {
    if (log !== undefined) {
      Deno.writeTextFileSync(log, "started\n", { append: true });
    }
    await new Promise<void>((resolve) => {
      const t = setTimeout(resolve, ms);
      extra.signal.addEventListener("abort", () => {
        clearTimeout(t);
        if (log !== undefined) {
          Deno.writeTextFileSync(log, `cancelled ${extra.requestId}\n`, {
            append: true,
          });
        }
        resolve();
      });
    });
    return { content: [{ type: "text", text: `waited ${ms}` }] };
  });
  server.registerTool("big", {
    description: "A 1 MiB result",
    inputSchema: {},
  }, () => ({ content: [{ type: "text", text: "x".repeat(1024 * 1024) }] }));
  server.registerTool("env", {
    description: "The server's environment",
    inputSchema: {},
  }, () => ({
    // One name or value per line, so a screened value leaves its name.
    content: [{
      type: "text",
      text: JSON.stringify(Deno.env.toObject(), null, 1),
    }],
  }));
  server.registerTool("wipe", {
    description: "Deletes everything",
    inputSchema: {},
    annotations: { destructiveHint: true },
  }, () => ({ content: [{ type: "text", text: "wiped" }] }));
  server.registerTool("grow", {
    description: "Adds the tool 'extra'",
    inputSchema: {},
  }, () => {
    server.registerTool("extra", {
      description: "Added later",
      inputSchema: {},
    }, () => ({ content: [{ type: "text", text: "extra" }] }));
    return { content: [{ type: "text", text: "grown" }] };
  });
  return server;
}

/** Serves the test server over streamable HTTP on 127.0.0.1, port 0. */
export async function serveHttp(
  log?: string,
): Promise<{ url: string; close(): Promise<void> }> {
  const server = testServer(log);
  const transport = new WebStandardStreamableHTTPServerTransport({
    sessionIdGenerator: () => crypto.randomUUID(),
  });
  await server.connect(transport);
  const http = Deno.serve(
    { hostname: "127.0.0.1", port: 0, onListen: () => {} },
    (req) => transport.handleRequest(req),
  );
  return {
    url: `http://127.0.0.1:${http.addr.port}/mcp`,
    async close() {
      await server.close().catch(() => undefined);
      await http.shutdown();
    },
  };
}

if (import.meta.main && Deno.args[0] === "stdio") {
  // A marker that says the server was spawned at all.
  if (Deno.args[2] !== undefined) Deno.writeTextFileSync(Deno.args[2], "up\n");
  await testServer(Deno.args[1]).connect(new StdioServerTransport());
}

if (import.meta.main && Deno.args[0] === "http") {
  // Serves until killed, one MCP session per client (benchmarks start
  // many); its URL goes to the file named.
  const sessions = new Map<
    string,
    WebStandardStreamableHTTPServerTransport
  >();
  const http = Deno.serve(
    { hostname: "127.0.0.1", port: 0, onListen: () => {} },
    async (req) => {
      const id = req.headers.get("mcp-session-id");
      let transport = id === null ? undefined : sessions.get(id);
      if (transport === undefined) {
        const fresh = new WebStandardStreamableHTTPServerTransport({
          sessionIdGenerator: () => crypto.randomUUID(),
          onsessioninitialized: (sid: string) => void sessions.set(sid, fresh),
        });
        fresh.onclose = () => {
          if (fresh.sessionId !== undefined) sessions.delete(fresh.sessionId);
        };
        await testServer().connect(fresh);
        transport = fresh;
      }
      return await transport.handleRequest(req);
    },
  );
  if (Deno.args[1] !== undefined) {
    Deno.writeTextFileSync(
      Deno.args[1],
      `http://127.0.0.1:${http.addr.port}/mcp`,
    );
  }
}
