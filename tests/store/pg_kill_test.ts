/**
 * A holder killed with SIGKILL mid-session on a Postgres store: a child
 * process takes the lease and commits one turn, then is killed; the
 * session holds whole turns only, and a claimant on the same host takes
 * the lease over at once (its holder's process is gone) and continues.
 * Postgres comes from `tests/store/_pg.ts`.
 */
import assert from "node:assert/strict";
import { openPostgresStore } from "../../store/postgres/mod.ts";
import { adminSql, pgUrlForFile } from "./_pg.ts";
import { newSession, turn } from "./_harness.ts";

const base = pgUrlForFile();

const CHILD = `
import { openPostgresStore } from "${
  new URL("../../store/postgres/mod.ts", import.meta.url).href
}";
import { turn } from "${new URL("./_harness.ts", import.meta.url).href}";
const store = await openPostgresStore({ url: Deno.args[0] });
const answer = await store.acquireLease("s1", {
  holderId: "child", pid: Deno.pid, hostname: "this-host",
});
if (!answer.ok) Deno.exit(3);
await store.commitTurn("s1", turn("from the child"));
console.log("held");
// Writing a second turn for ever: the kill lands between or inside them.
for (let i = 0; i < 100000; i++) await store.commitTurn("s1", turn("more " + i));
`;

Deno.test({
  name: "kill -9 of a lease holder: whole turns only, taken over at once",
  ignore: base === undefined,
  async fn() {
    assert.ok(base !== undefined && base !== "unavailable");
    const admin = await adminSql(base);
    const schema = `t_${crypto.randomUUID().replaceAll("-", "")}`;
    await admin.unsafe(`CREATE SCHEMA ${schema}`);
    const scoped = new URL(base);
    scoped.searchParams.set("search_path", schema);
    const url = scoped.href;
    const store = await openPostgresStore({ url });
    try {
      await store.create(newSession());
      const dir = await Deno.makeTempDir();
      const script = `${dir}/holder.ts`;
      await Deno.writeTextFile(script, CHILD);
      const child = new Deno.Command(Deno.execPath(), {
        args: [
          "run",
          "-A",
          "--no-prompt",
          `--config=${new URL("../../deno.json", import.meta.url).pathname}`,
          script,
          url,
        ],
        stdout: "piped",
        stderr: "inherit",
      }).spawn();
      // Bounded: the child says "held" once its first turn is stored.
      const reader = child.stdout.getReader();
      let timer: ReturnType<typeof setTimeout> | undefined;
      const first = await Promise.race([
        reader.read(),
        new Promise<undefined>((r) => {
          timer = setTimeout(() => r(undefined), 30_000);
        }),
      ]);
      clearTimeout(timer);
      assert.ok(
        first !== undefined && !first.done,
        "the child never held the lease",
      );
      child.kill("SIGKILL");
      const status = await child.status;
      reader.releaseLock();
      await child.stdout.cancel();
      await Deno.remove(dir, { recursive: true });
      assert.equal(status.signal, "SIGKILL");

      const loaded = await store.load("s1");
      assert.ok(loaded !== undefined);
      assert.ok(loaded.messages.length >= 2);
      // Whole turns: a user row and its answer, pair by pair.
      assert.equal(loaded.messages.length % 2, 0);
      assert.equal(loaded.messages.at(-1)?.role, "assistant");

      const taken = await store.acquireLease?.("s1", {
        holderId: "heir",
        hostname: "this-host",
        isAlive: (pid) => pid !== child.pid,
      });
      assert.equal(taken?.ok && taken.tookOver?.holderId, "child");
      await store.commitTurn("s1", turn("the heir goes on"));
      const after = await store.load("s1");
      assert.equal(after?.messages.length, loaded.messages.length + 2);
    } finally {
      await store.close();
      await admin.unsafe(`DROP SCHEMA ${schema} CASCADE`);
      await admin.end({ timeout: 5 });
    }
  },
});
