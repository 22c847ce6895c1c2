import assert from "node:assert/strict";
import {
  DEFAULT_EVENT_CAPACITY,
  EventChannel,
} from "../../host/event_channel.ts";

async function readAll<T>(channel: EventChannel<T>): Promise<T[]> {
  const out: T[] = [];
  for await (const item of channel) out.push(item);
  return out;
}

Deno.test("EventChannel delivers in order to a waiting reader and ends after close", async () => {
  const channel = new EventChannel<number>();
  const reading = readAll(channel);
  for (let i = 0; i < 5; i++) channel.publish(i);
  channel.close();
  channel.publish(99); // ignored after close
  assert.deepEqual(await reading, [0, 1, 2, 3, 4]);
  assert.equal(channel.dropped, 0);
});

Deno.test("EventChannel keeps at most its capacity when nobody reads, dropping the oldest", async () => {
  assert.equal(DEFAULT_EVENT_CAPACITY, 10_000);
  const channel = new EventChannel<number>();
  const total = DEFAULT_EVENT_CAPACITY + 2_500;
  for (let i = 0; i < total; i++) channel.publish(i);
  assert.equal(channel.size, DEFAULT_EVENT_CAPACITY);
  assert.equal(channel.dropped, 2_500);
  channel.close();
  const items = await readAll(channel);
  assert.equal(items.length, DEFAULT_EVENT_CAPACITY);
  assert.equal(items[0], 2_500);
  assert.equal(items.at(-1), total - 1);
});

Deno.test("EventChannel: breaking a for-await keeps the channel usable", async () => {
  const channel = new EventChannel<string>({ capacity: 10 });
  for (const s of ["a", "b", "c"]) channel.publish(s);
  for await (const s of channel) {
    assert.equal(s, "a");
    break;
  }
  channel.publish("d");
  channel.close();
  assert.deepEqual(await readAll(channel), ["b", "c", "d"]);
});

Deno.test("EventChannel allows one reader at a time", async () => {
  const channel = new EventChannel<number>();
  const first = channel[Symbol.asyncIterator]();
  assert.throws(() => channel[Symbol.asyncIterator](), TypeError);
  await first.return?.();
  const second = channel[Symbol.asyncIterator]();
  channel.publish(1);
  assert.deepEqual(await second.next(), { value: 1, done: false });
  await second.return?.();
});

Deno.test("EventChannel.settled() waits until the reader has taken everything published so far", async () => {
  const channel = new EventChannel<number>();
  const seen: number[] = [];
  const reader = (async () => {
    for await (const n of channel) seen.push(n);
  })();
  for (let i = 0; i < 3; i++) channel.publish(i);
  await channel.settled();
  assert.deepEqual(seen, [0, 1, 2]);
  channel.publish(3);
  await channel.settled();
  assert.deepEqual(seen, [0, 1, 2, 3]);
  channel.close();
  await reader;
});

Deno.test("EventChannel.settled() counts dropped items as done and resolves at once when empty", async () => {
  const empty = new EventChannel<number>();
  await empty.settled();
  const channel = new EventChannel<number>({ capacity: 2 });
  channel.publish(1);
  let settled = false;
  const waiting = channel.settled().then(() => {
    settled = true;
  });
  channel.publish(2);
  await Promise.resolve();
  assert.equal(settled, false, "item 1 is still unread");
  channel.publish(3); // drops 1
  await waiting;
  assert.equal(settled, true);
  assert.equal(channel.dropped, 1);
});

Deno.test("EventChannel rejects a capacity that is not a positive integer", () => {
  assert.throws(() => new EventChannel({ capacity: 0 }), RangeError);
  assert.throws(() => new EventChannel({ capacity: 1.5 }), RangeError);
});
