/**
 * The `newAbortController` effect: each operation's controller comes from
 * it; `abort()` and `cancel()` abort the one it made; a throw (or a value
 * that is not a controller) fails the operation before any egress; a
 * controller already aborted ends the operation as aborted, before any
 * egress.
 */
import assert from "node:assert/strict";
import { createFakeRegistry } from "../_fakes/tools.ts";
import { harness, reply } from "./_harness.ts";

function factory(options: { fail?: number[]; aborted?: number[] } = {}) {
  const made: AbortController[] = [];
  let calls = 0;
  return {
    made,
    get calls(): number {
      return calls;
    },
    newAbortController(): AbortController {
      calls++;
      if (options.fail?.includes(calls)) throw new Error("no controllers");
      const c = new AbortController();
      if (options.aborted?.includes(calls)) c.abort();
      made.push(c);
      return c;
    },
  };
}

Deno.test("sendMessage() runs under the factory's controller; abort() and cancel() abort it", async () => {
  const f = factory();
  const h = harness({
    script: [reply("one"), reply("two")],
    deps: { newAbortController: () => f.newAbortController() },
    onEvent: (e, s) => {
      if (e.type === "agent:token" && f.calls === 2) s.abort();
    },
  });
  assert.equal((await h.session.sendMessage("a")).kind, "completed");
  assert.equal(f.calls, 1);
  assert.equal(f.made[0]?.signal.aborted, false);
  const aborted = await h.session.sendMessage("b");
  assert.equal(aborted.kind, "aborted");
  assert.equal(f.made[1]?.signal.aborted, true, "abort() used its controller");
  const g = factory();
  const c = harness({
    script: [reply("x")],
    deps: { newAbortController: () => g.newAbortController() },
    onEvent: (e, s) => {
      if (e.type === "agent:token") s.cancel();
    },
  });
  await c.session.sendMessage("c");
  assert.equal(g.made[0]?.signal.aborted, true, "cancel() used its controller");
});

Deno.test("sendMessage(): a factory that throws or makes no controller fails the turn internal before any egress", async (t) => {
  const rows: [string, () => AbortController][] = [
    ["throws", () => {
      throw new Error("no controllers");
    }],
    ["returns undefined", () => undefined as unknown as AbortController],
    ["returns a signal", () => new AbortController().signal as never],
  ];
  for (const [label, make] of rows) {
    await t.step(label, async () => {
      const h = harness({
        script: [reply("never")],
        deps: { newAbortController: make },
      });
      const r = await h.session.sendMessage("hi");
      assert.equal(r.kind, "failed");
      if (r.kind === "failed") {
        assert.equal(r.error.code, "internal");
        assert.match(r.error.message, /newAbortController effect failed/);
      }
      assert.equal(h.provider.requests.length, 0, "no egress");
      assert.equal(h.session.turnCount, 0, "not counted");
      assert.equal(h.session.state, "idle");
      assert.deepEqual(h.types().slice(-2), [
        "session:turn_started",
        "session:turn_completed",
      ]);
      assert.equal(h.session.transcript.messages.length, 0);
    });
  }
  await t.step("the next turn runs once the factory works again", async () => {
    const f = factory({ fail: [1] });
    const h = harness({
      script: [reply("ok")],
      deps: { newAbortController: () => f.newAbortController() },
    });
    assert.equal((await h.session.sendMessage("a")).kind, "failed");
    assert.equal((await h.session.sendMessage("b")).kind, "completed");
  });
});

Deno.test("sendMessage(): a controller already aborted ends the turn aborted before any egress", async () => {
  const f = factory({ aborted: [1] });
  const h = harness({
    script: [reply("never")],
    deps: { newAbortController: () => f.newAbortController() },
  });
  const r = await h.session.sendMessage("hi");
  assert.equal(r.kind, "aborted");
  assert.equal(h.provider.requests.length, 0);
  assert.equal(h.session.state, "idle");
});

Deno.test("compact() and runUserCommand() return failed when the factory fails", async () => {
  const f = factory({ fail: [3, 4] });
  const h = harness({
    script: [reply("one"), reply("two"), reply("never")],
    deps: {
      newAbortController: () => f.newAbortController(),
      tools: createFakeRegistry({}),
    },
  });
  await h.session.sendMessage("a");
  await h.session.sendMessage("b");
  const failed = {
    kind: "failed",
    message: "Cannot start: the session's newAbortController effect failed",
  };
  assert.deepEqual(await h.session.compact(), failed);
  assert.deepEqual(await h.session.runUserCommand("ls", []), failed);
  assert.equal(h.provider.requests.length, 2, "no summariser egress");
  assert.equal(h.session.state, "idle");
});
