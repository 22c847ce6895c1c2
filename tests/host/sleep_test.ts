import assert from "node:assert/strict";
import { abortableSleep } from "../../host/sleep.ts";

Deno.test("abortableSleep() resolves after its time", async () => {
  const started = performance.now();
  await abortableSleep(20, new AbortController().signal);
  assert.ok(performance.now() - started >= 15);
});

Deno.test("abortableSleep() returns at once when aborted during the wait, and leaves no timer", async () => {
  const controller = new AbortController();
  const started = performance.now();
  const wait = abortableSleep(30_000, controller.signal);
  setTimeout(() => controller.abort(new Error("aborted")), 10);
  await assert.rejects(wait, /aborted/);
  assert.ok(performance.now() - started < 1_000);
  // The test sanitizer fails this test if the 30 s timer were still pending.
});

Deno.test("abortableSleep() rejects with the reason when already aborted", async () => {
  const reason = new Error("before");
  await assert.rejects(
    abortableSleep(10, AbortSignal.abort(reason)),
    (e) => e === reason,
  );
});
