/**
 * `write_file` on real temp dirs: happy paths (temp + rename, append,
 * createDirs) and the write-side refusals, each proving the
 * host performed no effect (and, for lexical refusals, saw nothing).
 */
import assert from "node:assert/strict";
import { createModePolicy } from "../../../tools/modes.ts";
import type { ApprovalDecision, TurnPolicy } from "../../../tools/registry.ts";
import { builtinRig, makeContext, messageOf, tempDir } from "../_helpers.ts";

async function setUp() {
  const dir = await tempDir();
  const ws = `${dir.path}/ws`;
  const outside = `${dir.path}/outside`;
  await Deno.mkdir(ws);
  await Deno.mkdir(outside);
  const { registry, calls, effects } = builtinRig({ workingDir: ws });
  const auto = createModePolicy({
    mode: "auto",
    interactive: false,
    isReadOnly: registry.isReadOnly,
  });
  async function write(
    args: Record<string, unknown>,
    options: { policy?: TurnPolicy | "none"; interactive?: boolean } = {},
  ) {
    const policy = options.policy ?? auto.policy;
    const t = makeContext({
      granted: ["write_file"],
      interactive: options.interactive ?? false,
      ...(policy === "none" ? {} : { policy }),
    });
    const outcome = await registry.dispatch(
      { id: "c", name: "write_file", args },
      t.ctx,
    );
    return { outcome, approvals: t.approvals };
  }
  return { dir, ws, outside, calls, effects, write };
}

Deno.test("write_file writes, overwrites keeping the mode, appends, creates dirs", async (t) => {
  const s = await setUp();
  await using _ = s.dir;
  await t.step("new file: {path, bytesWritten} in UTF-8 bytes", async () => {
    const { outcome } = await s.write({ path: "notes.txt", content: "héllo" });
    assert.equal(outcome.kind, "ok");
    if (outcome.kind === "ok") {
      assert.deepEqual(JSON.parse(outcome.modelResult), {
        path: "notes.txt",
        bytesWritten: 6,
      });
    }
    assert.equal(await Deno.readTextFile(`${s.ws}/notes.txt`), "héllo");
  });
  await t.step(
    "overwrite keeps the permission bits, leaves no temp file",
    async () => {
      await Deno.chmod(`${s.ws}/notes.txt`, 0o640);
      const { outcome } = await s.write({
        path: "./notes.txt",
        content: "new",
      });
      assert.equal(outcome.kind, "ok");
      assert.equal(await Deno.readTextFile(`${s.ws}/notes.txt`), "new");
      assert.equal(
        ((await Deno.stat(`${s.ws}/notes.txt`)).mode ?? 0) & 0o777,
        0o640,
      );
      const names = [];
      for await (const e of Deno.readDir(s.ws)) names.push(e.name);
      assert.deepEqual(names, ["notes.txt"]);
    },
  );
  await t.step(
    "a hard-linked target is replaced by rename, the other link untouched",
    async () => {
      await Deno.writeTextFile(`${s.ws}/a.txt`, "old");
      await Deno.link(`${s.ws}/a.txt`, `${s.ws}/b.txt`);
      const { outcome } = await s.write({ path: "a.txt", content: "fresh" });
      assert.equal(outcome.kind, "ok");
      assert.equal(await Deno.readTextFile(`${s.ws}/a.txt`), "fresh");
      assert.equal(await Deno.readTextFile(`${s.ws}/b.txt`), "old");
    },
  );
  await t.step("append adds to a file, or creates it", async () => {
    assert.equal(
      (await s.write({ path: "log.txt", content: "1\n", append: true })).outcome
        .kind,
      "ok",
    );
    assert.equal(
      (await s.write({ path: "log.txt", content: "2\n", append: true })).outcome
        .kind,
      "ok",
    );
    assert.equal(await Deno.readTextFile(`${s.ws}/log.txt`), "1\n2\n");
  });
  await t.step(
    "createDirs creates missing parents; without it nothing is created and the model is told",
    async () => {
      const denied = await s.write({ path: "deep/er/x.txt", content: "x" });
      assert.equal(denied.outcome.kind, "feedback");
      assert.match(messageOf(denied.outcome), /createDirs/);
      await assert.rejects(Deno.stat(`${s.ws}/deep`), Deno.errors.NotFound);
      const { outcome } = await s.write({
        path: "deep/er/x.txt",
        content: "x",
        createDirs: true,
      });
      assert.equal(outcome.kind, "ok");
      assert.equal(await Deno.readTextFile(`${s.ws}/deep/er/x.txt`), "x");
    },
  );
});

Deno.test("write_file refusals: the host performs no effect; only a denial ends the turn", async (t) => {
  const s = await setUp();
  await using _ = s.dir;
  const { ws, outside } = s;
  await Deno.writeTextFile(`${outside}/secret.txt`, "keep");
  await Deno.symlink(outside, `${ws}/link`);
  await Deno.symlink(`${outside}/secret.txt`, `${ws}/target.txt`);
  await Deno.symlink(`${outside}/nothing`, `${ws}/dangling`);
  await Deno.writeTextFile(`${outside}/h0`, "linked");
  await Deno.link(`${outside}/h0`, `${ws}/h1`);
  await Deno.mkdir(`${ws}/.git`);
  await Deno.symlink(`${ws}/.git`, `${ws}/docs`);
  await Deno.mkdir(`${ws}/dir`);
  const rows: [string, Record<string, unknown>, RegExp, "none" | "reads"][] = [
    ["..", { path: "../outside/x.txt", content: "x" }, /escapes/, "none"],
    [
      "absolute outside",
      { path: `${outside}/x.txt`, content: "x" },
      /escapes/,
      "none",
    ],
    [
      "/proc/self/root",
      { path: `/proc/self/root${outside}/x.txt`, content: "x" },
      /escapes/,
      "none",
    ],
    ["symlinked dir", { path: "link/x.txt", content: "x" }, /symlink/, "reads"],
    [
      "symlinked dir + createDirs",
      { path: "link/new/x.txt", content: "x", createDirs: true },
      /symlink/,
      "reads",
    ],
    [
      "symlink as the final target",
      { path: "target.txt", content: "x" },
      /symlink/,
      "reads",
    ],
    [
      "dangling symlink as the final target",
      { path: "dangling", content: "x" },
      /symlink/,
      "reads",
    ],
    [
      "hard-linked append target",
      { path: "h1", content: "x", append: true },
      /hard link/,
      "reads",
    ],
    [
      "symlinked dir into .git",
      { path: "docs/hooks-post", content: "x" },
      /protected/,
      "reads",
    ],
    [
      "a directory",
      { path: "dir", content: "x" },
      /not a regular file/,
      "reads",
    ],
  ];
  for (const [name, args, why, seen] of rows) {
    await t.step(name, async () => {
      s.calls.length = 0;
      const { outcome } = await s.write(args);
      // Nothing happened and nothing was denied: the model can fix it.
      const fixable = /escapes|not a regular file/.test(why.source);
      assert.equal(outcome.kind, fixable ? "feedback" : "fatal", name);
      assert.match(messageOf(outcome), why);
      assert.ok(
        !messageOf(outcome).includes(outside),
        "no path in the message",
      );
      assert.deepEqual(s.effects(), []);
      if (seen === "none") assert.deepEqual(s.calls, []);
    });
  }
  assert.equal(await Deno.readTextFile(`${outside}/secret.txt`), "keep");
  assert.equal(await Deno.readTextFile(`${outside}/h0`), "linked");
  const left = [];
  for await (const e of Deno.readDir(outside)) left.push(e.name);
  assert.deepEqual(left.sort(), ["h0", "secret.txt"]);
});

Deno.test("write_file appends refuse FIFOs without opening them", async () => {
  const s = await setUp();
  await using _ = s.dir;
  const made = await new Deno.Command("mkfifo", { args: [`${s.ws}/fifo`] })
    .output();
  if (!made.success) return; // no mkfifo on this host
  const { outcome } = await s.write({
    path: "fifo",
    content: "x",
    append: true,
  });
  assert.equal(outcome.kind, "feedback");
  assert.match(messageOf(outcome), /not a regular file/);
  assert.deepEqual(s.effects(), []);
});

Deno.test("write_file protected paths: folded names, never auto-approved, never cached", async (t) => {
  const s = await setUp();
  await using _ = s.dir;
  const names = [
    ".git/config",
    ".GIT/hooks/pre-commit",
    ".BashRC",
    ".bashrc:stream",
    ".bashrc.",
    ".bashrc. .",
    "sub/.SSH/authorized_keys",
    ".gitconfig",
    ".relavium/config.toml",
  ];
  await t.step(
    "auto without an approver denies, and the host sees nothing",
    async () => {
      for (const path of names) {
        s.calls.length = 0;
        const { outcome, approvals } = await s.write({
          path,
          content: "x",
          createDirs: true,
        });
        assert.equal(outcome.kind, "fatal", path);
        assert.match(messageOf(outcome), /protected/, path);
        assert.deepEqual(s.calls, [], path);
        assert.equal(approvals.length, 0);
      }
    },
  );
  await t.step("no turn policy denies", async () => {
    const { outcome } = await s.write({ path: ".bashrc", content: "x" }, {
      policy: "none",
    });
    assert.equal(outcome.kind, "fatal");
  });
  await t.step(
    "a policy that approves everything still asks a person",
    async () => {
      const asked: string[] = [];
      const policy: TurnPolicy = {
        decide: () => ({ approve: true }),
        confirm: (r) => {
          asked.push(r.preview.path ?? "");
          return Promise.resolve("always" as ApprovalDecision);
        },
      };
      for (let i = 0; i < 2; i++) {
        const { outcome } = await s.write(
          { path: ".bashrc", content: `v${i}` },
          {
            policy,
            interactive: true,
          },
        );
        assert.equal(outcome.kind, "ok");
      }
      assert.deepEqual(asked, [".bashrc", ".bashrc"]);
      assert.equal(await Deno.readTextFile(`${s.ws}/.bashrc`), "v1");
    },
  );
  await t.step("accept-edits asks every time (not cacheable)", async () => {
    const asked: boolean[] = [];
    const modes = createModePolicy({
      mode: "accept-edits",
      interactive: true,
      approver: (r) => {
        asked.push(r.cacheable);
        return Promise.resolve("always");
      },
    });
    for (let i = 0; i < 2; i++) {
      const { outcome } = await s.write({
        path: ".git/info/x",
        content: "x",
        createDirs: true,
      }, {
        policy: modes.policy,
        interactive: true,
      });
      assert.equal(outcome.kind, "ok");
    }
    assert.deepEqual(asked, [false, false]);
  });
});
