import assert from "node:assert/strict";
import { posix, win32 } from "node:path";
import { posixPaths, windowsPaths } from "../../schema/paths.ts";

// Every case is checked against `node:path`, which the module replaces on
// the start-up path: the same inputs give the same outputs.
const POSIX_CASES = [
  "",
  ".",
  "..",
  "/",
  "//",
  "a",
  "a/",
  "/a",
  "/a/",
  "a/b/c",
  "/a/b/c/",
  "a//b///c",
  "/a/./b/../c",
  "../a/../../b",
  "/../a",
  "./a",
  "a/..",
  "a/b/..",
  "/a/b.txt",
  "rel/file.agent.yaml",
  ".hidden",
];

const WINDOWS_CASES = [
  ...POSIX_CASES,
  "C:",
  "C:\\",
  "C:/",
  "C:\\a\\b",
  "C:/a/b/",
  "c:\\A\\b\\..\\c",
  "C:a\\b",
  "\\a\\b",
  "\\\\host\\share",
  "\\\\host\\share\\",
  "\\\\host\\share\\dir\\f.txt",
  "//host/share/dir",
  "a\\b/c",
  "D:\\x\\..\\..",
];

const CWD_POSIX = "/home/u/proj";
const CWD_WIN = "C:\\Users\\u\\proj";

function compare(
  name: string,
  ours: typeof posixPaths,
  node: typeof posix,
  cases: string[],
  cwd: string,
): void {
  for (const p of cases) {
    for (const op of ["normalize", "dirname", "basename"] as const) {
      assert.equal(
        ours[op](p),
        node[op](p),
        `${name}.${op}(${JSON.stringify(p)})`,
      );
    }
    assert.equal(
      ours.isAbsolute(p),
      node.isAbsolute(p),
      `${name}.isAbsolute(${p})`,
    );
    assert.equal(
      ours.basename(p, ".txt"),
      node.basename(p, ".txt"),
      `basename ext ${p}`,
    );
    for (const q of ["", "x", "../y", cases[4] ?? "", "/z/w"]) {
      assert.equal(
        ours.join(p, q),
        node.join(p, q),
        `${name}.join(${p}, ${q})`,
      );
    }
    // Absolute inputs: resolve and relative do not depend on the process's
    // working directory.
    // (On Windows, only paths with a drive: a rooted path with none takes
    // the drive of the working directory, which a test cannot fix.)
    const abs = ours.sep === "/"
      ? (p.startsWith("/") && !p.startsWith("//") ? p : `${cwd}/${p}`)
      : (/^[a-zA-Z]:[\\/]/.test(p) ? p : `${cwd}\\${p}`);
    assert.equal(
      ours.resolve(abs),
      node.resolve(abs),
      `${name}.resolve(${abs})`,
    );
    assert.equal(
      ours.resolve(cwd, p),
      node.resolve(cwd, p),
      `${name}.resolve(cwd, ${p})`,
    );
    for (
      const other of [
        cwd,
        `${cwd}${ours.sep}sub${ours.sep}deeper`,
        ours.sep === "/" ? "/" : "C:\\",
        ours.sep === "/" ? "/home/v" : "D:\\x",
      ]
    ) {
      assert.equal(
        ours.relative(other, abs),
        node.relative(other, abs),
        `${name}.relative(${other}, ${abs})`,
      );
    }
  }
  assert.equal(ours.sep, node.sep);
}

Deno.test("POSIX paths give node:path's posix results", () => {
  compare("posix", posixPaths, posix, POSIX_CASES, CWD_POSIX);
});

Deno.test("Windows paths give node:path's win32 results", () => {
  compare("win32", windowsPaths, win32, WINDOWS_CASES, CWD_WIN);
  assert.equal(windowsPaths.relative("C:\\A\\b", "c:\\a\\B\\c"), "c");
});

Deno.test("resolve and relative start from the working directory", () => {
  const ours = Deno.build.os === "windows" ? windowsPaths : posixPaths;
  const node = Deno.build.os === "windows" ? win32 : posix;
  for (const p of ["", ".", "a/b", "../x"]) {
    assert.equal(ours.resolve(p), node.resolve(p), p);
    assert.equal(ours.relative(p, "q"), node.relative(p, "q"), p);
  }
});
