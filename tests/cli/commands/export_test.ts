/**
 * `chat-export` and the in-chat `/export`,
 * in-process through `main(argv, io)` on temp stores.
 */
import assert from "node:assert/strict";
import { DatabaseSync } from "node:sqlite";
import {
  denoAtomicWriteFs,
  writeFileAtomic,
} from "../../../cli/io/atomic_write.ts";
import { EXPORT_NOTICE, exportText } from "../../../cli/io/export_file.ts";
import { parseWorkflow } from "../../../export/mod.ts";
import { openSession } from "../../../host/host.ts";
import { hostParts } from "../../_fakes/runtime.ts";
import { createScriptedProvider } from "../../../llm/scripted_provider.ts";
import { createMemoryStore } from "../../../store/memory_store.ts";
import { openSqliteStore } from "../../../store/sqlite_store.ts";
import type { LoadedSession } from "../../../store/store.ts";
import {
  parseEvents,
  runCli,
  signature,
  tempDir,
  textCassette,
  write,
} from "../_helpers.ts";

interface Fixture {
  root: string;
  env: Record<string, string>;
  id: string;
}

/** Runs a one-turn chat in `root` and returns its session id. */
async function chatOnce(root: string): Promise<Fixture> {
  const env = { RELAVIUM_HOME: `${root}/home`, NO_COLOR: "1" };
  await write(`${root}/c.json`, textCassette("anthropic", ["Paris."]));
  const r = await runCli(["chat", "--json", "--fixture", "c.json"], {
    env,
    cwd: root,
    stdin: "Capital of France?\n",
  });
  assert.equal(r.code, 0, r.stderr);
  const id = parseEvents(r.stdout)[0]?.sessionId ?? "";
  return { root, env, id };
}

function load(root: string, id: string): LoadedSession | undefined {
  const store = openSqliteStore(`${root}/home/history.db`, {
    clock: { now: () => 0 },
    ids: () => crypto.randomUUID(),
  });
  try {
    return store.load(id);
  } finally {
    store.close();
  }
}

/** Whether a 0555 folder refuses writes here (not for root). */
async function permissionBitsEnforced(): Promise<boolean> {
  await using dir = await tempDir();
  await Deno.chmod(dir.path, 0o555);
  try {
    await Deno.writeTextFile(`${dir.path}/probe`, "");
    await Deno.remove(`${dir.path}/probe`);
    return false;
  } catch {
    return true;
  } finally {
    await Deno.chmod(dir.path, 0o755);
  }
}

async function names(dir: string): Promise<string[]> {
  const out: string[] = [];
  for await (const e of Deno.readDir(dir)) out.push(e.name);
  return out.sort();
}

Deno.test("chat-export writes <cwd>/<id>.relavium.yaml, marks the row, prints the notice", async () => {
  await using dir = await tempDir();
  const { env, id } = await chatOnce(dir.path);
  const before = load(dir.path, id);
  const r = await runCli(["chat-export", id], { env, cwd: dir.path });
  assert.equal(r.code, 0, r.stderr);
  assert.equal(r.stdout, "", "plain mode: nothing on stdout");
  const target = `${dir.path}/${id}.relavium.yaml`;
  assert.equal(
    r.stderr,
    `Exported session ${id} to ${target}\n${EXPORT_NOTICE}`,
  );
  const loaded = load(dir.path, id);
  assert.equal(loaded?.record.status, "exported");
  assert.equal(loaded?.record.exportedWorkflowPath, target);
  const text = await Deno.readTextFile(target);
  if (before !== undefined) {
    assert.equal(text, exportText(before), "the row as it was when exported");
  }
  const doc = parseWorkflow(text, target);
  assert.ok(doc.ok, JSON.stringify(doc));
  if (doc.ok) {
    assert.deepEqual(doc.value.workflow.nodes.map((n) => n.id), [
      "input",
      "turn-1",
      "output",
    ]);
  }
  assert.deepEqual(
    (await names(dir.path)).filter((n) => n.endsWith(".tmp")),
    [],
  );
  const quiet = await runCli(["chat-export", id, "--force", "-q"], {
    env,
    cwd: dir.path,
  });
  assert.equal(quiet.code, 0);
  assert.equal(quiet.stderr, EXPORT_NOTICE, "-q keeps the notice");
  const listed = await runCli(["chat-list", "--json"], { env, cwd: dir.path });
  assert.equal(JSON.parse(listed.stdout).status, "exported");
});

Deno.test("chat-export twice on an unchanged session writes identical bytes (updatedAt kept)", async () => {
  await using dir = await tempDir();
  const { env, id } = await chatOnce(dir.path);
  // An old updatedAt, so a marking that bumped it could not go unseen.
  const db = new DatabaseSync(`${dir.path}/home/history.db`);
  db.prepare("UPDATE agent_sessions SET updated_at = 1000 WHERE id = ?").run(
    id,
  );
  db.close();
  const target = `${dir.path}/${id}.relavium.yaml`;
  const first = await runCli(["chat-export", id], { env, cwd: dir.path });
  assert.equal(first.code, 0, first.stderr);
  const bytes = await Deno.readFile(target);
  assert.equal(
    load(dir.path, id)?.record.updatedAt,
    new Date(1000).toISOString(),
  );
  const second = await runCli(["chat-export", id, "--force"], {
    env,
    cwd: dir.path,
  });
  assert.equal(second.code, 0, second.stderr);
  assert.deepEqual(await Deno.readFile(target), bytes);
  assert.equal(load(dir.path, id)?.record.status, "exported");
});

Deno.test("chat-export --json: one session:exported event on stdout, notice on stderr", async () => {
  await using dir = await tempDir();
  const { env, id } = await chatOnce(dir.path);
  const r = await runCli(["chat-export", "--json", id], {
    env,
    cwd: dir.path,
  });
  assert.equal(r.code, 0, r.stderr);
  assert.equal(r.stderr, EXPORT_NOTICE);
  const [event, ...rest] = parseEvents(r.stdout);
  assert.deepEqual(rest, []);
  assert.ok(event?.type === "session:exported");
  assert.deepEqual(Object.keys(event), [
    "type",
    "sessionId",
    "timestamp",
    "sequenceNumber",
    "workflowPath",
  ]);
  assert.equal(event.sessionId, id);
  assert.equal(event.workflowPath, `${dir.path}/${id}.relavium.yaml`);
  const rows = load(dir.path, id)?.messages ?? [];
  const max = Math.max(...rows.map((m) => m.sequenceNumber));
  assert.equal(event.sequenceNumber, max + 1);
});

Deno.test("chat-export --out is relative to the cwd (--cwd too) and creates folders", async () => {
  await using dir = await tempDir();
  const { env, id } = await chatOnce(dir.path);
  await Deno.mkdir(`${dir.path}/proj`);
  const r = await runCli([
    "chat-export",
    id,
    "--cwd",
    "proj",
    "--out",
    "flows/deep/paris.relavium.yaml",
  ], { env, cwd: dir.path });
  assert.equal(r.code, 0, r.stderr);
  const target = `${dir.path}/proj/flows/deep/paris.relavium.yaml`;
  assert.ok((await Deno.stat(target)).isFile);
  assert.equal(load(dir.path, id)?.record.exportedWorkflowPath, target);
});

Deno.test("chat-export: an existing target without --force is exit 2 and nothing is written", async () => {
  await using dir = await tempDir();
  const { env, id } = await chatOnce(dir.path);
  const target = `${dir.path}/${id}.relavium.yaml`;
  await Deno.writeTextFile(target, "mine\n");
  const r = await runCli(["chat-export", id, "--json"], {
    env,
    cwd: dir.path,
  });
  assert.equal(r.code, 2);
  assert.equal(r.stdout, "");
  const e = JSON.parse(r.stderr);
  assert.equal(e.code, "target_exists");
  assert.ok(String(e.message).includes(target));
  assert.equal(await Deno.readTextFile(target), "mine\n");
  assert.equal(load(dir.path, id)?.record.status, "ended", "row untouched");
  const forced = await runCli(["chat-export", id, "--force"], {
    env,
    cwd: dir.path,
  });
  assert.equal(forced.code, 0, forced.stderr);
  assert.match(await Deno.readTextFile(target), /^schema_version: "1\.0"\n/);
});

Deno.test("chat-export: an unknown id is exit 2 not_found and nothing is written", async (t) => {
  await t.step("no history.db yet (and none created)", async () => {
    await using dir = await tempDir();
    const r = await runCli(["chat-export", "nope", "--json"], {
      env: { RELAVIUM_HOME: `${dir.path}/home` },
      cwd: dir.path,
    });
    assert.deepEqual([r.code, r.stdout, JSON.parse(r.stderr).code], [
      2,
      "",
      "not_found",
    ]);
    assert.deepEqual(await names(dir.path), []);
  });
  await t.step("a store without that id", async () => {
    await using dir = await tempDir();
    const { env, id } = await chatOnce(dir.path);
    const before = await names(dir.path);
    const r = await runCli(["chat-export", `${id}x`], { env, cwd: dir.path });
    assert.equal(r.code, 2);
    assert.equal(r.stderr, `error: No session with id ${id}x\n`);
    assert.deepEqual(await names(dir.path), before);
  });
  await t.step("a deleted session", async () => {
    await using dir = await tempDir();
    const { env, id } = await chatOnce(dir.path);
    assert.equal(
      (await runCli(["chat-delete", id, "--yes"], { env, cwd: dir.path }))
        .code,
      0,
    );
    const r = await runCli(["chat-export", id], { env, cwd: dir.path });
    assert.equal(r.code, 2);
  });
});

Deno.test("chat-export: a failed write leaves no partial file and does not mark the row", async (t) => {
  await t.step("the rename fails (the target is a folder)", async () => {
    await using dir = await tempDir();
    const { env, id } = await chatOnce(dir.path);
    await Deno.mkdir(`${dir.path}/out/taken.yaml/inner`, { recursive: true });
    const r = await runCli([
      "chat-export",
      id,
      "--out",
      "out/taken.yaml",
      "--force",
    ], { env, cwd: dir.path });
    assert.equal(r.code, 1);
    assert.match(r.stderr, /^error: Cannot write the export .*taken\.yaml: /);
    assert.ok(!r.stderr.includes("Review before use"), "no notice");
    assert.deepEqual(await names(`${dir.path}/out`), ["taken.yaml"]);
    assert.equal(load(dir.path, id)?.record.status, "ended");
  });
  await t.step({
    name: "the folder is read-only (ignored when running as root)",
    ignore: !await permissionBitsEnforced(),
    fn: async () => {
      await using dir = await tempDir();
      const { env, id } = await chatOnce(dir.path);
      const ro = `${dir.path}/ro`;
      await Deno.mkdir(ro);
      await Deno.chmod(ro, 0o555);
      try {
        const r = await runCli(["chat-export", id, "--out", "ro/x.yaml"], {
          env,
          cwd: dir.path,
        });
        assert.equal(r.code, 1);
        assert.match(r.stderr, /^error: Cannot write the export /);
        assert.deepEqual(await names(ro), []);
        assert.equal(load(dir.path, id)?.record.status, "ended");
      } finally {
        await Deno.chmod(ro, 0o755);
      }
    },
  });
});

Deno.test("writeFileAtomic() removes its temporary file when a step fails", async (t) => {
  for (const step of ["write", "rename"] as const) {
    await t.step(step, async () => {
      await using dir = await tempDir();
      await Deno.writeTextFile(`${dir.path}/a.yaml`, "old\n");
      const fs = {
        ...denoAtomicWriteFs,
        async writeNew(path: string, text: string): Promise<void> {
          // A partial write, then a failure (e.g. a full disk).
          await Deno.writeTextFile(path, text.slice(0, 3));
          if (step === "write") throw new Deno.errors.WriteZero("disk full");
        },
        rename(from: string, to: string): Promise<void> {
          return step === "rename"
            ? Promise.reject(new Deno.errors.PermissionDenied("no"))
            : Deno.rename(from, to);
        },
      };
      const r = await writeFileAtomic(`${dir.path}/a.yaml`, "new text\n", {
        fs,
        tempSuffix: "t1",
      });
      assert.equal(r.ok ? "" : r.error.step, step);
      assert.deepEqual(await names(dir.path), ["a.yaml"]);
      assert.equal(await Deno.readTextFile(`${dir.path}/a.yaml`), "old\n");
    });
  }
  await t.step("another writer's temporary file is left alone", async () => {
    await using dir = await tempDir();
    await Deno.writeTextFile(`${dir.path}/.a.yaml.t1.tmp`, "theirs");
    const r = await writeFileAtomic(`${dir.path}/a.yaml`, "x\n", {
      tempSuffix: "t1",
    });
    assert.equal(r.ok ? "" : r.error.step, "write");
    assert.equal(
      await Deno.readTextFile(`${dir.path}/.a.yaml.t1.tmp`),
      "theirs",
    );
  });
});

Deno.test("/export in a chat: session:exported on the live stream, file in cwd, row not marked", async () => {
  await using dir = await tempDir();
  const env = { RELAVIUM_HOME: `${dir.path}/home`, NO_COLOR: "1" };
  await write(
    `${dir.path}/c.json`,
    textCassette("anthropic", ["Paris.", "Madrid."]),
  );
  const r = await runCli(["chat", "--json", "--fixture", "c.json"], {
    env,
    cwd: dir.path,
    stdin: "Capital of France?\n/export\nAnd Spain?\n/export\n",
  });
  assert.equal(r.code, 0, r.stderr);
  assert.equal(
    r.stderr,
    `${EXPORT_NOTICE}Review before use (see the notice printed at this chat's first /export)\n`,
    "the notice once per chat",
  );
  const list = parseEvents(r.stdout);
  const sig = signature(list);
  assert.deepEqual(sig.filter((s) => s.startsWith("session:")), [
    "session:started",
    "session:turn_started",
    "session:turn_completed",
    "session:exported",
    "session:turn_started",
    "session:turn_completed",
    "session:exported",
    "session:cancelled",
  ]);
  const id = list[0]?.sessionId ?? "";
  const target = `${dir.path}/${id}.relavium.yaml`;
  const exported = list.filter((e) => e.type === "session:exported");
  assert.deepEqual(
    exported.map((e) => "workflowPath" in e ? e.workflowPath : ""),
    [target, target],
  );
  const loaded = load(dir.path, id);
  assert.equal(loaded?.record.status, "ended", "/export does not mark");
  assert.equal(loaded?.record.exportedWorkflowPath, undefined);
  const doc = parseWorkflow(await Deno.readTextFile(target), target);
  assert.ok(doc.ok);
  if (doc.ok) {
    assert.equal(doc.value.workflow.nodes.length, 4, "overwritten: 2 turns");
  }
  const plain = await runCli(["chat", "--fixture", "c.json"], {
    env,
    cwd: dir.path,
    stdin: "Capital of France?\n/export\n/export now\n",
  });
  assert.equal(plain.code, 0, plain.stderr);
  assert.match(plain.stderr, /\nExported to .*\.relavium\.yaml\nReview before/);
  assert.match(plain.stderr, /\/export takes no argument\n/);
});

Deno.test("PersistedSession.emitExported() stamps the next number and refuses after cancel", async () => {
  const provider = createScriptedProvider({ id: "openai", script: [] });
  const live = openSession({
    store: createMemoryStore(),
    ...hostParts({ resolveProvider: () => provider }, {
      clock: { now: () => 0 },
      ids: () => "s1",
    }),
    agent: {
      id: "mini",
      model: "gpt-5.4-mini",
      provider: "openai",
      system_prompt: "Be terse.",
    },
    context: { workingDir: "/w", fsScopeTier: "sandboxed" },
  });
  live.emitExported("/w/s1.relavium.yaml");
  live.close();
  assert.throws(() => live.emitExported("/w/x"), TypeError);
  const seen: string[] = [];
  for await (const e of live.events) seen.push(`${e.sequenceNumber}:${e.type}`);
  assert.deepEqual(seen, [
    "0:session:started",
    "1:session:exported",
    "2:session:cancelled",
  ]);
});
