import assert from "node:assert/strict";
import {
  checkLexicalPath,
  planFsScope,
} from "../../../tools/sandbox/fs_scope.ts";

Deno.test("planFsScope() applies tiers and clamps full to project", async (t) => {
  await t.step("sandboxed ignores extra roots", () => {
    const p = planFsScope({
      workingDir: "/ws",
      fsScopeTier: "sandboxed",
      extraRoots: ["/lib"],
    }, "posix");
    assert.deepEqual([p.tier, p.roots, p.notices], ["sandboxed", ["/ws"], []]);
  });
  await t.step("project adds extra roots, dedups nested ones", () => {
    const p = planFsScope({
      workingDir: "/ws/",
      fsScopeTier: "project",
      extraRoots: ["/lib", "/ws/sub"],
    }, "posix");
    assert.deepEqual([p.tier, p.roots], ["project", ["/ws", "/lib"]]);
  });
  await t.step("full is clamped with a notice", () => {
    const p = planFsScope({ workingDir: "/ws", fsScopeTier: "full" }, "posix");
    assert.equal(p.tier, "project");
    assert.equal(p.notices.length, 1);
    assert.match(p.notices[0] ?? "", /full/);
  });
  await t.step("non-absolute or UNC roots throw", () => {
    assert.throws(
      () =>
        planFsScope({ workingDir: "ws", fsScopeTier: "sandboxed" }, "posix"),
      TypeError,
    );
    assert.throws(
      () =>
        planFsScope({
          workingDir: "/ws",
          fsScopeTier: "project",
          extraRoots: ["rel"],
        }, "posix"),
      TypeError,
    );
    assert.throws(
      () =>
        planFsScope(
          { workingDir: "\\\\srv\\share", fsScopeTier: "sandboxed" },
          "windows",
        ),
      TypeError,
    );
  });
});

Deno.test("checkLexicalPath() table", () => {
  const plan = planFsScope({
    workingDir: "/ws",
    fsScopeTier: "project",
    extraRoots: ["/lib"],
  }, "posix");
  const table: [string, "ok" | "escape" | "refused"][] = [
    ["a.txt", "ok"],
    ["./src/../a.txt", "ok"],
    ["/ws", "ok"],
    ["/ws/a", "ok"],
    ["/lib/x", "ok"],
    ["..", "escape"],
    ["../ws2/a", "escape"],
    ["/ws2/a", "escape"],
    ["/etc/passwd", "escape"],
    ["/proc/self/root/ws/a", "escape"],
    ["", "escape"],
    ["  ", "escape"],
    ["a\0b", "escape"],
    ["\\\\server\\share\\a", "escape"],
    [".env", "refused"],
    ["sub/.SSH/key", "refused"],
  ];
  for (const [path, want] of table) {
    const r = checkLexicalPath(plan, path, "read");
    const got = r.ok ? "ok" : r.error.kind;
    assert.equal(got, want, JSON.stringify(path));
    if (!r.ok) {
      assert.ok(!r.error.message.includes("/"), "no path in the reason");
    }
  }
});

Deno.test("checkLexicalPath() reports protected writes without refusing", () => {
  const plan = planFsScope(
    { workingDir: "/ws", fsScopeTier: "sandboxed" },
    "posix",
  );
  const r = checkLexicalPath(plan, ".git/config", "write");
  assert.ok(r.ok);
  assert.equal(r.value.protectedPath, true);
  const s = checkLexicalPath(plan, ".env", "write");
  assert.ok(s.ok);
  assert.equal(s.value.protectedPath, false);
});

Deno.test("checkLexicalPath() on Windows rejects UNC and drive-relative paths", () => {
  const plan = planFsScope(
    { workingDir: "C:\\ws", fsScopeTier: "sandboxed" },
    "windows",
  );
  const table: [string, boolean][] = [
    ["a.txt", true],
    ["C:\\WS\\a.txt", true],
    ["C:/ws/sub/a.txt", true],
    ["C:\\ws2\\a", false],
    ["D:a.txt", false],
    ["\\\\server\\share", false],
    ["//server/share", false],
    ["..\\x", false],
  ];
  for (const [path, want] of table) {
    assert.equal(checkLexicalPath(plan, path, "read").ok, want, path);
  }
});
