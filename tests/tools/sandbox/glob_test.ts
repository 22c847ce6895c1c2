import assert from "node:assert/strict";
import {
  hasGlobSyntax,
  matchPathGlob,
  matchWildcard,
} from "../../../tools/sandbox/glob.ts";

Deno.test("matchWildcard() matches the command flavour", () => {
  const table: [string, string, boolean][] = [
    ["git status", "git status", true],
    ["git status", "git status ", false],
    ["npm run *", "npm run test", true],
    ["npm run *", "npm run ", true],
    ["npm run *", "npm run", false],
    ["*", "", true],
    ["?", "", false],
    ["?", "é", true],
    ["?", "😀", true],
    ["a*b*c", "aXXbYYc", true],
    ["a*b*c", "aXXbYY", false],
    ["*.ts", "src/a.ts", true],
    ["ls [a]", "ls [a]", true],
    ["ls .*", "ls x", false],
  ];
  for (const [p, t, want] of table) {
    assert.equal(matchWildcard(p, t), want, `${p} ~ ${t}`);
  }
});

Deno.test("matchWildcard() stays fast on adversarial input", () => {
  const pattern = "*a".repeat(40) + "b";
  const text = "a".repeat(5000);
  assert.equal(matchWildcard(pattern, text), false);
});

Deno.test("matchPathGlob() handles *, ? and ** per segment", () => {
  const table: [string, string, boolean][] = [
    ["*.ts", "a.ts", true],
    ["*.ts", "src/a.ts", false],
    ["**/*.ts", "a.ts", true],
    ["**/*.ts", "src/deep/a.ts", true],
    ["src/**", "src/a/b", true],
    ["src/**", "src", true],
    ["src/**/x.md", "src/x.md", true],
    ["src/**/x.md", "src/a/b/x.md", true],
    ["src/**/x.md", "lib/x.md", false],
    ["?.md", "a.md", true],
    ["?.md", "ab.md", false],
    ["a/*/c", "a/b/c", true],
    ["a/*/c", "a/b/d/c", false],
    ["**", "", true],
    ["**/**/z", "z", true],
  ];
  for (const [p, t, want] of table) {
    assert.equal(matchPathGlob(p, t), want, `${p} ~ ${t}`);
  }
});

Deno.test("hasGlobSyntax() detects * and ?", () => {
  assert.equal(hasGlobSyntax("a/b"), false);
  assert.equal(hasGlobSyntax("a/*"), true);
  assert.equal(hasGlobSyntax("a?"), true);
});
