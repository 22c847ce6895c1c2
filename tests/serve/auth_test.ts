import assert from "node:assert/strict";
import {
  checkHostAndOrigin,
  hostCheck,
  secretEquals,
  TICKET_TTL_MS,
  Tickets,
} from "../../serve/auth.ts";
import { EventLog } from "../../serve/event_log.ts";

Deno.test("secretEquals() compares whole secrets", () => {
  assert.equal(secretEquals("abc", "abc"), true);
  for (const other of ["", "ab", "abcd", "abd", "ABC"]) {
    assert.equal(secretEquals(other, "abc"), false, other);
  }
});

Deno.test("hostCheck() answers the bound name, loopback spellings, and only IP literals on a wildcard bind", () => {
  const loop = hostCheck("127.0.0.1", 4780);
  for (const ok of ["127.0.0.1:4780", "localhost:4780", "[::1]:4780"]) {
    assert.equal(loop(ok), true, ok);
  }
  for (const bad of ["127.0.0.1:4781", "evil.example:4780", "127.0.0.1", ""]) {
    assert.equal(loop(bad), false, bad);
  }
  const any = hostCheck("0.0.0.0", 8080);
  assert.equal(any("192.168.1.20:8080"), true);
  assert.equal(any("[fe80::1]:8080"), true);
  assert.equal(any("rebind.example:8080"), false);
  const named = hostCheck("box.lan", 80);
  assert.equal(named("box.lan:80"), true);
  assert.equal(named("127.0.0.1:80"), false);
});

Deno.test("checkHostAndOrigin() refuses a foreign Origin and allows listed ones", () => {
  const ok = hostCheck("127.0.0.1", 1);
  const h = (origin?: string) =>
    new Headers({
      host: "127.0.0.1:1",
      ...(origin === undefined ? {} : { origin }),
    });
  assert.equal(checkHostAndOrigin(h(), ok, []), undefined);
  assert.equal(checkHostAndOrigin(h("http://127.0.0.1:1"), ok, []), undefined);
  assert.match(
    checkHostAndOrigin(h("http://evil.example"), ok, []) ?? "",
    /Origin/,
  );
  assert.equal(
    checkHostAndOrigin(h("https://app.example"), ok, ["https://app.example"]),
    undefined,
  );
});

Deno.test("Tickets.redeem() is single-use, session-bound and short-lived", () => {
  let now = 1000;
  const tickets = new Tickets(() => now);
  const a = tickets.issue("s1");
  assert.equal(tickets.redeem(a, "s2"), false);
  assert.equal(tickets.redeem(a, "s1"), false, "spent by the wrong session");
  const b = tickets.issue("s1");
  assert.equal(tickets.redeem(b, "s1"), true);
  assert.equal(tickets.redeem(b, "s1"), false);
  const c = tickets.issue("s1");
  now += TICKET_TTL_MS;
  assert.equal(tickets.redeem(c, "s1"), false);
});

Deno.test("EventLog.after() replays exactly what follows a cursor, else asks for a resync", () => {
  const log = new EventLog("s", 3);
  for (let i = 0; i < 5; i++) log.append({ type: `e${i}` });
  const seqs = (c: string) => {
    const plan = log.after(c);
    return plan.kind === "replay" ? plan.events.map((e) => e.seq) : plan.kind;
  };
  assert.deepEqual(seqs("s.2"), [3, 4, 5]);
  assert.deepEqual(seqs("s.4"), [5]);
  assert.deepEqual(seqs("s.5"), []);
  assert.equal(seqs("s.1"), "resync", "fell out of the buffer");
  assert.equal(seqs("s.6"), "resync", "ahead of the log");
  assert.equal(seqs("other.3"), "resync", "another run's stream");
  assert.equal(seqs("garbage"), "resync");
});
