/**
 * The tool ids of MCP tools: `mcp_<server>_<tool>`, characters outside
 * `A-Za-z0-9_-` replaced by `_`; an id longer than 64 characters, or one
 * already taken, is cut and gets a short hash of the server and tool
 * names, so every id is a valid, unique model tool name.
 *
 * @module
 */

/** The longest tool name every provider accepts. */
export const MAX_TOOL_ID = 64;

/** FNV-1a (32 bit) of a text, as 8 hex digits. */
function shortHash(text: string): string {
  let h = 0x811c9dc5;
  for (const byte of new TextEncoder().encode(text)) {
    h ^= byte;
    h = Math.imul(h, 0x01000193) >>> 0;
  }
  return h.toString(16).padStart(8, "0");
}

/**
 * The tool id of an MCP tool, unique among `taken`.
 *
 * @param server The server id.
 * @param tool The tool's name on the server.
 * @param taken Ids already in use (built-ins and earlier MCP tools).
 * @returns The id.
 */
export function mcpToolId(
  server: string,
  tool: string,
  taken: ReadonlySet<string>,
): string {
  const plain = `mcp_${server}_${tool}`.replace(/[^A-Za-z0-9_-]/g, "_");
  if (plain.length <= MAX_TOOL_ID && !taken.has(plain)) return plain;
  for (let salt = 0; salt < 100; salt++) {
    const suffix = `_${shortHash(`${server}\u0000${tool}\u0000${salt}`)}`;
    const id = plain.slice(0, MAX_TOOL_ID - suffix.length) + suffix;
    if (!taken.has(id)) return id;
  }
  throw new RangeError(`Cannot name MCP tool ${server}/${tool}`);
}
