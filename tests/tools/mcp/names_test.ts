import assert from "node:assert/strict";
import { MAX_TOOL_ID, mcpToolId } from "../../../tools/mcp/names.ts";

Deno.test("mcpToolId() names, sanitises, and hashes long or clashing ids", async (t) => {
  await t.step("plain", () => {
    assert.equal(mcpToolId("calc", "add", new Set()), "mcp_calc_add");
  });
  await t.step("characters outside A-Za-z0-9_- become _", () => {
    assert.equal(
      mcpToolId("fs", "read.file/v2 ü", new Set()),
      "mcp_fs_read_file_v2__",
    );
  });
  await t.step("over 64 characters: cut, with a hash suffix", () => {
    const id = mcpToolId("server", "t".repeat(80), new Set());
    assert.equal(id.length, MAX_TOOL_ID);
    assert.match(id, /^mcp_server_t+_[0-9a-f]{8}$/);
    assert.equal(id, mcpToolId("server", "t".repeat(80), new Set()));
  });
  await t.step("a clash gets a hash suffix, and so does the next", () => {
    const taken = new Set(["mcp_a_b_c"]);
    const first = mcpToolId("a", "b.c", taken);
    assert.match(first, /^mcp_a_b_c_[0-9a-f]{8}$/);
    taken.add(first);
    const second = mcpToolId("a", "b.c", taken);
    assert.notEqual(second, first);
    assert.match(second, /^mcp_a_b_c_[0-9a-f]{8}$/);
  });
});
