/**
 * A small MCP server written with the SDK, over stdio: one `add` tool.
 * `examples/mcp_tools.ts` starts it; any MCP client can
 * (`deno run examples/mcp/calc_server.ts`).
 *
 * @module
 */
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { StdioServerTransport } from "@modelcontextprotocol/sdk/server/stdio.js";
import { z } from "zod";

const server = new McpServer({ name: "calc", version: "1.0.0" });
server.registerTool("add", {
  description: "Add two numbers",
  inputSchema: { a: z.number(), b: z.number() },
  annotations: { readOnlyHint: true },
}, ({ a, b }: { a: number; b: number }) => ({
  content: [{ type: "text", text: `${a + b}` }],
}));
await server.connect(new StdioServerTransport());
