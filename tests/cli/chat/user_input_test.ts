/**
 * `createUserInput()` against a fake session: the `!`
 * outcomes and their lines, the bounded preview, queueing into exactly
 * the next message, and `@` notices.
 */
import assert from "node:assert/strict";
import { createUserInput } from "../../../cli/chat/user_input.ts";
import type { UserCommandOutcome } from "../../../tools/registry.ts";

function rig(
  answer: UserCommandOutcome | Error,
  options: { mode?: "ask" | "plan" | "accept-edits" | "auto" } = {},
) {
  let out = "";
  const calls: [string, string[]][] = [];
  let policies = 0;
  let byte = 0;
  const input = createUserInput({
    write: (t) => {
      out += t;
    },
    session: {
      runUserCommand: (cmd, args) => {
        calls.push([cmd, args]);
        return answer instanceof Error
          ? Promise.reject(answer)
          : Promise.resolve(answer);
      },
      setTurnPolicy: () => void policies++,
    },
    modes: { mode: options.mode ?? "auto", policy: {} },
    readFile: (path) =>
      Promise.resolve(
        path === "a.txt"
          ? { ok: true, content: "AAA", sizeBytes: 3 }
          : { ok: false, message: "no such file or directory" },
      ),
    random: (n) => new Uint8Array(n).fill(byte++),
  });
  return { input, out: () => out, calls, policies: () => policies };
}

Deno.test("createUserInput() ! lines: preview, queue once, outcomes", async (t) => {
  await t.step(
    "ran: bounded preview, queued for the next message only",
    async () => {
      const stdout = Array.from({ length: 50 }, (_, i) => `line ${i}`).join(
        "\n",
      ) + "\n";
      const r = rig({
        kind: "ran",
        exitCode: 2,
        stdout,
        stderr: "\x1b[31moops",
      });
      assert.equal(await r.input.prepare(`!make  "a b"`), undefined);
      assert.deepEqual(r.calls, [["make", ["a b"]]]);
      assert.equal(r.policies(), 1, "the current mode's policy is set first");
      const text = r.out();
      assert.ok(text.startsWith("line 0\n"));
      assert.ok(text.includes("line 19\n… (31 more lines)\n"));
      assert.ok(!text.includes("line 20\n"));
      assert.ok(text.endsWith("[exit 2 · queued for your next message]\n"));
      const next = await r.input.prepare("what failed?");
      const nonce = "00".repeat(16);
      assert.ok(
        next?.startsWith(
          `what failed?\n\n<command id="${nonce}" cmd="make a b" exit="2">\nline 0\n`,
        ),
      );
      assert.ok(
        next?.endsWith(`\n[stderr]\n\x1b[31moops\n</command:${nonce}>`),
      );
      assert.equal(await r.input.prepare("again"), "again");
    },
  );
  await t.step("blank ! is a no-op", async () => {
    const r = rig({ kind: "cancelled" });
    assert.equal(await r.input.prepare("!   "), undefined);
    assert.deepEqual(r.calls, []);
    assert.equal(r.out(), "");
  });
  const rows: [string, UserCommandOutcome | Error, string, string][] = [
    [
      "allowlist",
      { kind: "denied", allowlist: true, message: "x" },
      "auto",
      '! ls -la: not allowed. Add "ls -la" to [chat].allowed_commands to enable it.\n',
    ],
    [
      "mode",
      { kind: "denied", allowlist: false, message: "x" },
      "plan",
      "! ls -la: plan mode runs no commands. Switch with /mode (ask asks first) to run it.\n",
    ],
    [
      "user",
      { kind: "denied", allowlist: false, message: "x" },
      "accept-edits",
      "! ls -la: you declined it; nothing ran.\n",
    ],
    [
      "failed",
      { kind: "failed", message: "Command failed: program not found" },
      "auto",
      "! ls -la: Command failed: program not found\n",
    ],
    ["cancelled", { kind: "cancelled" }, "auto", "! ls -la: cancelled\n"],
    [
      "busy",
      new Error("not_active"),
      "auto",
      "! ls -la: the session is busy or has ended\n",
    ],
  ];
  for (const [name, answer, mode, want] of rows) {
    await t.step(name, async () => {
      const r = rig(answer, { mode: mode as "auto" });
      assert.equal(await r.input.prepare("!ls -la"), undefined);
      assert.equal(r.out(), want);
      assert.equal(await r.input.prepare("next"), "next", "nothing queued");
    });
  }
});

Deno.test("createUserInput() @ markers: attached, refused, unavailable", async () => {
  const r = rig({ kind: "cancelled" });
  const msg = await r.input.prepare("compare @a.txt with @b.txt");
  const nonce = "00".repeat(16);
  assert.equal(
    msg,
    `compare @a.txt with @b.txt\n\n<file id="${nonce}" path="a.txt">\nAAA\n</file:${nonce}>`,
  );
  assert.equal(
    r.out(),
    "@a.txt: attached 3 chars (≈1 tokens)\n@b.txt: no such file or directory; sent as text\n",
  );
  let out = "";
  const none = createUserInput({
    write: (t) => {
      out += t;
    },
    session: {
      runUserCommand: () => Promise.resolve({ kind: "cancelled" }),
      setTurnPolicy: () => {},
    },
    modes: { mode: "ask", policy: {} },
    random: (n) => new Uint8Array(n),
  });
  assert.equal(await none.prepare("see @a.txt"), "see @a.txt");
  assert.equal(
    out,
    "@a.txt: file injection is unavailable here; sent as text\n",
  );
});
