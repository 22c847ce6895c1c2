/**
 * The Deno host's write effects on their own: `rename` never writes
 * through a final symlink, `appendFile` refuses a file that changed since
 * the jail's `lstat` (a swapped-in symlink, another inode, a new hard
 * link), `mkdir` refuses an existing entry.
 */
import assert from "node:assert/strict";
import { createDenoToolEffects } from "../../../tools/deno/effects.ts";
import { ToolEffectsError } from "../../../tools/effects.ts";
import { tempDir } from "../_helpers.ts";

const signal = new AbortController().signal;
const bytes = (s: string): Uint8Array => new TextEncoder().encode(s);

Deno.test("writeFileAtomic() replaces a final symlink instead of writing through it", async () => {
  await using dir = await tempDir();
  const host = createDenoToolEffects();
  await Deno.writeTextFile(`${dir.path}/victim`, "keep");
  await Deno.symlink(`${dir.path}/victim`, `${dir.path}/link`);
  await host.writeFileAtomic?.(dir.path, "link", bytes("new"), { signal });
  assert.equal(await Deno.readTextFile(`${dir.path}/victim`), "keep");
  assert.equal((await Deno.lstat(`${dir.path}/link`)).isSymlink, false);
  assert.equal(await Deno.readTextFile(`${dir.path}/link`), "new");
});

Deno.test("appendFile() writes nothing when the file changed since lstat", async (t) => {
  await using dir = await tempDir();
  const host = createDenoToolEffects();
  const file = `${dir.path}/a.txt`;
  /** Appends `text` to `path`, refusing hard links, if `path` is still `expectedId`. */
  const append = (path: string, text: string, expectedId?: string) =>
    host.appendFile?.(path, bytes(text), {
      expectedId,
      refuseHardLinks: true,
      signal,
    }) ?? Promise.resolve();
  await Deno.writeTextFile(file, "a");
  const id = (await host.lstat(file)).fileId;
  assert.ok(id !== undefined);
  await t.step("same file: appended", async () => {
    await append(file, "b", id);
    assert.equal(await Deno.readTextFile(file), "ab");
  });
  await t.step("swapped for a symlink to another file", async () => {
    await Deno.writeTextFile(`${dir.path}/other`, "o");
    await Deno.remove(file);
    await Deno.symlink(`${dir.path}/other`, file);
    await assert.rejects(
      append(file, "x", id),
      ToolEffectsError,
    );
    assert.equal(await Deno.readTextFile(`${dir.path}/other`), "o");
  });
  await t.step("a hard link appeared", async () => {
    const f = `${dir.path}/h.txt`;
    await Deno.writeTextFile(f, "h");
    const hid = (await host.lstat(f)).fileId;
    await Deno.link(f, `${dir.path}/h2.txt`);
    await assert.rejects(
      append(f, "x", hid),
      ToolEffectsError,
    );
    assert.equal(await Deno.readTextFile(f), "h");
  });
  await t.step("a missing file is not created", async () => {
    await assert.rejects(
      append(`${dir.path}/none`, "x", undefined),
      (e: unknown) => e instanceof ToolEffectsError && e.kind === "not_found",
    );
    await assert.rejects(Deno.stat(`${dir.path}/none`), Deno.errors.NotFound);
  });
});

Deno.test("mkdir() creates one level and refuses an existing entry", async () => {
  await using dir = await tempDir();
  const host = createDenoToolEffects();
  await host.mkdir?.(`${dir.path}/d`);
  assert.ok((await Deno.stat(`${dir.path}/d`)).isDirectory);
  await assert.rejects(
    host.mkdir?.(`${dir.path}/d`) ?? Promise.resolve(),
    ToolEffectsError,
  );
  await assert.rejects(
    host.mkdir?.(`${dir.path}/x/y`) ?? Promise.resolve(),
    ToolEffectsError,
  );
  await Deno.symlink(`${dir.path}/nowhere`, `${dir.path}/dangling`);
  await assert.rejects(
    host.mkdir?.(`${dir.path}/dangling`) ?? Promise.resolve(),
    ToolEffectsError,
  );
  await assert.rejects(Deno.stat(`${dir.path}/nowhere`), Deno.errors.NotFound);
});
