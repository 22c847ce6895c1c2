import assert from "node:assert/strict";
import { builtinTools } from "../../../tools/builtin/all.ts";
import type { ToolLimits } from "../../../tools/sandbox/limits.ts";
import type { ListDirectoryResult } from "../../../tools/builtin/list_directory.ts";
import type { ToolOutcome } from "../../../tools/registry.ts";
import { messageOf, runBuiltin, tempDir } from "../_helpers.ts";

async function list(
  ws: string,
  args: Record<string, unknown>,
  limits: Partial<ToolLimits> = {},
): Promise<ToolOutcome> {
  return await runBuiltin("list_directory", args, {
    workingDir: ws,
    tools: builtinTools(),
    limits,
  });
}

function namesOf(
  o: ToolOutcome,
): { names: string[]; result: ListDirectoryResult } {
  assert.equal(o.kind, "ok", messageOf(o));
  const result = JSON.parse(
    o.kind === "ok" ? o.modelResult : "{}",
  ) as ListDirectoryResult;
  return { names: result.entries.map((e) => `${e.name}:${e.type}`), result };
}

async function tree(root: string): Promise<void> {
  await Deno.mkdir(`${root}/src/deep`, { recursive: true });
  await Deno.mkdir(`${root}/.ssh`);
  await Deno.writeTextFile(`${root}/README.md`, "hello");
  await Deno.writeTextFile(`${root}/.env`, "K=V");
  await Deno.writeTextFile(`${root}/.ssh/id_rsa`, "key");
  await Deno.writeTextFile(`${root}/src/a.ts`, "a");
  await Deno.writeTextFile(`${root}/src/deep/b.ts`, "bb");
}

Deno.test("list_directory lists direct entries with metadata", async () => {
  await using dir = await tempDir();
  await tree(dir.path);
  const { names, result } = namesOf(await list(dir.path, { path: "." }));
  assert.deepEqual(names, ["README.md:file", "src:directory"]);
  const readme = result.entries[0];
  assert.equal(readme?.sizeBytes, 5);
  assert.match(readme?.lastModified ?? "", /^\d{4}-\d\d-\d\dT/);
  assert.equal(result.entries[1]?.sizeBytes, 0);
  assert.equal(result.truncated, undefined);
});

Deno.test("list_directory walks recursively with relative names and globs", async () => {
  await using dir = await tempDir();
  await tree(dir.path);
  const rows: [Record<string, unknown>, string[]][] = [
    [{ path: "." }, [
      "README.md:file",
      "src:directory",
      "src/a.ts:file",
      "src/deep:directory",
      "src/deep/b.ts:file",
    ]],
    [{ path: "src", glob: "*.ts" }, ["a.ts:file", "deep/b.ts:file"]],
    [{ path: ".", glob: "src/*/*.ts" }, ["src/deep/b.ts:file"]],
  ];
  for (const [args, names] of rows) {
    const listed = await list(dir.path, { ...args, recursive: true });
    assert.deepEqual(namesOf(listed).names, names, JSON.stringify(args));
  }
});

Deno.test("list_directory caps entries and reports truncation", async () => {
  await using dir = await tempDir();
  for (let i = 0; i < 5; i++) await Deno.writeTextFile(`${dir.path}/f${i}`, "");
  const { names, result } = namesOf(
    await list(dir.path, { path: "." }, { listEntries: 3 }),
  );
  assert.deepEqual(names, ["f0:file", "f1:file", "f2:file"]);
  assert.equal(result.truncated, true);
});

Deno.test("list_directory refuses a file and a sensitive directory", async () => {
  await using dir = await tempDir();
  await tree(dir.path);
  const file = await list(dir.path, { path: "README.md" });
  assert.equal(file.kind, "feedback");
  assert.match(messageOf(file), /not a directory/);
  const ssh = await list(dir.path, { path: ".ssh" });
  assert.equal(ssh.kind, "fatal");
  assert.match(messageOf(ssh), /sensitive-read floor/);
});
