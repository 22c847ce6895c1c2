import assert from "node:assert/strict";
import { parseSessionContext } from "../../schema/context.ts";

Deno.test("parseSessionContext() validates strictly and names key paths", async (t) => {
  await t.step("a full context", () => {
    const c = {
      workingDir: "/w",
      activeFile: "a.ts",
      selection: { file: "a.ts", startLine: 1, endLine: 3 },
      gitRef: "main",
      fsScopeTier: "project",
      variables: { area: "tests" },
    };
    const r = parseSessionContext(c, "context");
    assert.ok(r.ok);
    assert.deepEqual(r.value, c);
  });
  const bad: Array<[unknown, string]> = [
    [{ workingDir: "", fsScopeTier: "sandboxed" }, "workingDir"],
    [{ workingDir: "/w", fsScopeTier: "everything" }, "fsScopeTier"],
    [{ workingDir: "/w", fsScopeTier: "sandboxed", extra: 1 }, "extra"],
    [{
      workingDir: "/w",
      fsScopeTier: "sandboxed",
      selection: { file: "a", startLine: 5, endLine: 2 },
    }, "selection"],
    [
      { workingDir: "/w", fsScopeTier: "sandboxed", variables: { a: 1 } },
      "variables.a",
    ],
  ];
  for (const [value, path] of bad) {
    await t.step(`refuses ${path}`, () => {
      const r = parseSessionContext(value, "ctx.json");
      assert.equal(r.ok, false);
      if (!r.ok) {
        assert.equal(r.error.source, "ctx.json");
        assert.ok(
          r.error.issues.some((i) => i.path === path),
          JSON.stringify(r.error.issues),
        );
      }
    });
  }
});
