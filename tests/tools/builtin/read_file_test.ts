import assert from "node:assert/strict";
import { builtinTools } from "../../../tools/builtin/all.ts";
import { createDenoToolEffects } from "../../../tools/deno/effects.ts";
import type { ToolLimits } from "../../../tools/sandbox/limits.ts";
import type { ReadFileResult } from "../../../tools/builtin/read_file.ts";
import type { ToolOutcome } from "../../../tools/registry.ts";
import { ToolEffectsError } from "../../../tools/effects.ts";
import {
  builtinRig,
  makeContext,
  messageOf,
  runBuiltin,
  tempDir,
} from "../_helpers.ts";

async function readFile(
  ws: string,
  args: Record<string, unknown>,
  limits: Partial<ToolLimits> = {},
  interactive = true,
): Promise<ToolOutcome> {
  return await runBuiltin("read_file", args, {
    workingDir: ws,
    tools: builtinTools(),
    limits,
    interactive,
  });
}

function resultOf(o: ToolOutcome): ReadFileResult {
  assert.equal(o.kind, "ok", messageOf(o));
  return JSON.parse(o.kind === "ok" ? o.modelResult : "{}") as ReadFileResult;
}

Deno.test("read_file reads a text file with metadata", async () => {
  await using dir = await tempDir();
  await Deno.mkdir(`${dir.path}/src`);
  await Deno.writeTextFile(`${dir.path}/src/a.ts`, "export const a = 'é';\n");
  const mtime = new Date(Date.UTC(2026, 0, 2, 3, 4, 5));
  await Deno.utime(`${dir.path}/src/a.ts`, mtime, mtime);
  for (
    const path of ["src/a.ts", `${dir.path}/src/a.ts`, "./src/../src/a.ts"]
  ) {
    const o = await readFile(dir.path, { path });
    assert.deepEqual(resultOf(o), {
      content: "export const a = 'é';\n",
      mimeType: "text/typescript",
      sizeBytes: 23,
      lastModified: "2026-01-02T03:04:05.000Z",
    });
    assert.equal(o.summary, "Read 23 bytes (text/typescript)");
    assert.deepEqual(o.displayInput, { path });
  }
});

Deno.test("read_file refuses binary, oversized and non-file targets", async () => {
  await using dir = await tempDir();
  await Deno.writeFile(
    `${dir.path}/bin.dat`,
    new Uint8Array([0x50, 0x4b, 0, 1]),
  );
  await Deno.writeTextFile(`${dir.path}/big.txt`, "x".repeat(100));
  await Deno.mkdir(`${dir.path}/d`);
  const rows: [string, Partial<ToolLimits>, RegExp][] = [
    ["bin.dat", {}, /binary/],
    ["big.txt", { readBytes: 99 }, /exceeds the 99-byte read limit/],
    ["d", {}, /not a regular file/],
    ["missing", {}, /no such file/],
  ];
  for (const [path, limits, why] of rows) {
    const o = await readFile(dir.path, { path }, limits);
    assert.equal(o.kind, "feedback", path);
    assert.match(messageOf(o), why);
    assert.ok(!messageOf(o).includes(dir.path));
  }
  const late = await readFile(dir.path, { path: "big.txt" }, {
    readBytes: 100,
  });
  assert.equal(resultOf(late).sizeBytes, 100, "exactly at the limit is fine");
});

Deno.test("read_file with glob concatenates matching text files", async () => {
  await using dir = await tempDir();
  await Deno.mkdir(`${dir.path}/src/deep`, { recursive: true });
  await Deno.writeTextFile(`${dir.path}/src/a.ts`, "A");
  await Deno.writeTextFile(`${dir.path}/src/b.md`, "B");
  await Deno.writeTextFile(`${dir.path}/src/deep/c.ts`, "C");
  await Deno.writeFile(`${dir.path}/src/deep/d.ts`, new Uint8Array([0]));
  const flat = resultOf(
    await readFile(dir.path, { path: "src/*.ts", glob: true }),
  );
  assert.equal(flat.content, "===== src/a.ts =====\nA");
  const deep = resultOf(
    await readFile(dir.path, { path: "src/**/*.ts", glob: true }),
  );
  assert.equal(
    deep.content,
    "===== src/a.ts =====\nA\n\n===== src/deep/c.ts =====\nC",
  );
  assert.equal(deep.sizeBytes, 2);
  assert.equal(deep.mimeType, "text/plain");
  const none = resultOf(await readFile(dir.path, { path: "*.rs", glob: true }));
  assert.equal(none.content, "");
});

Deno.test("read_file glob stops at the match and byte caps", async () => {
  await using dir = await tempDir();
  for (let i = 0; i < 5; i++) {
    await Deno.writeTextFile(`${dir.path}/f${i}.txt`, "12345");
  }
  const capped = resultOf(
    await readFile(dir.path, { path: "*.txt", glob: true }, { globMatches: 2 }),
  );
  assert.equal(capped.content.match(/=====/g)?.length, 4);
  assert.match(capped.content, /\[… glob stopped at 2 matches\]$/);
  const bytes = resultOf(
    await readFile(dir.path, { path: "*.txt", glob: true }, { readBytes: 12 }),
  );
  assert.equal(bytes.sizeBytes, 10);
  assert.match(bytes.content, /total read limit\]$/);
});

Deno.test("read_file bounds a large file in the model copy only", async () => {
  await using dir = await tempDir();
  await Deno.writeTextFile(`${dir.path}/long.txt`, "row\n".repeat(20_000));
  const o = await readFile(dir.path, { path: "long.txt" });
  assert.equal(o.kind, "ok");
  if (o.kind !== "ok") return;
  assert.match(
    o.modelResult,
    /\[… truncated: \d+ bytes \/ 1 lines; full output unavailable \(no output store\)\]$/,
  );
  assert.ok(new TextEncoder().encode(o.modelResult).length <= 50 * 1024);
});

Deno.test("the Deno host's readFile re-checks the open handle: a hard link or a directory throws", async () => {
  await using dir = await tempDir();
  await Deno.writeTextFile(`${dir.path}/a.txt`, "alpha\n");
  await Deno.link(`${dir.path}/a.txt`, `${dir.path}/b.txt`);
  await Deno.mkdir(`${dir.path}/d`);
  const host = createDenoToolEffects();
  const options = { maxBytes: 1024, signal: new AbortController().signal };
  for (const [name, kind] of [["a.txt", "failed"], ["d", "is_a_directory"]]) {
    await assert.rejects(
      host.readFile(`${dir.path}/${name}`, options),
      (e: unknown) => e instanceof ToolEffectsError && e.kind === kind,
      name,
    );
  }
});

Deno.test("the Deno host's readFile reads past its synchronous first part and caps at maxBytes + 1", async () => {
  await using dir = await tempDir();
  const bytes = new Uint8Array(600 * 1024).map((_, i) => 97 + (i % 26));
  await Deno.writeFile(`${dir.path}/big.txt`, bytes);
  const host = createDenoToolEffects();
  const signal = new AbortController().signal;
  const all = await host.readFile(`${dir.path}/big.txt`, {
    maxBytes: 8 * 1024 * 1024,
    signal,
  });
  assert.deepEqual(all, bytes);
  const capped = await host.readFile(`${dir.path}/big.txt`, {
    maxBytes: 300_000,
    signal,
  });
  assert.deepEqual(capped, bytes.subarray(0, 300_001));
  await Deno.writeFile(`${dir.path}/empty.txt`, new Uint8Array());
  const empty = await host.readFile(`${dir.path}/empty.txt`, {
    maxBytes: 10,
    signal,
  });
  assert.equal(empty.length, 0);
});

Deno.test("the registry realpaths the workspace root on every read", async () => {
  await using dir = await tempDir();
  const ws = `${dir.path}/ws`;
  await Deno.mkdir(ws);
  await Deno.writeTextFile(`${ws}/a.txt`, "inside\n");
  const { registry, calls } = builtinRig({
    workingDir: ws,
    tools: builtinTools(),
  });
  for (let i = 0; i < 3; i++) {
    const o = await registry.dispatch(
      { id: "c", name: "read_file", args: { path: "a.txt" } },
      makeContext({ interactive: true }).ctx,
    );
    assert.equal(resultOf(o).content, "inside\n");
  }
  const rootRealpaths = calls.filter((c) =>
    c.op === "realPath" && c.target === ws
  );
  assert.equal(rootRealpaths.length, 3);
});
