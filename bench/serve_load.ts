/**
 * `relavium serve` under load, as a child process against the loopback
 * provider of `tests/serve/_kit.ts`: events per second to 1 and to 50
 * clients of one session, a turn's added latency through the server
 * against the same turn in-process (the library's `openSession` on a
 * SQLite store and the same provider), the memory an idle client costs,
 * and 100 concurrent sessions each streaming a 1,000-token answer (peak
 * RSS). Figures go to BENCHMARKS.md.
 *
 * Run: `deno run -A bench/serve_load.ts`
 *
 * @module
 */
import { openSession } from "../host/host.ts";
import { denoRuntime } from "../host/runtime.ts";
import { openSqliteStore } from "../store/sqlite_store.ts";
import {
  call,
  fakeProvider,
  openSse,
  prepareFolder,
  startServe,
} from "../tests/serve/_kit.ts";

function rssOf(pid: number, field: "VmRSS" | "VmHWM"): number {
  const status = Deno.readTextFileSync(`/proc/${pid}/status`);
  const kb = Number(new RegExp(`${field}:\\s+(\\d+) kB`).exec(status)?.[1]);
  return kb * 1024;
}

const median = (xs: number[]): number => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)] ?? NaN;
};

const tokens = (n: number): string[] =>
  Array.from({ length: n }, (_, i) => `t${i} `);

await using provider = fakeProvider();
const dir = await Deno.makeTempDir({ prefix: "serve-bench-" });
const folder = await prepareFolder(dir, provider.url, [
  "max_clients_per_session = 300",
]);
await using server = await startServe(folder);
const pid = server.pid;
const out: string[] = [];

async function fanOut(clients: number, n: number): Promise<number> {
  const created = await call(server, "POST", "/v1/sessions", {});
  const id = String(created.body.sessionId);
  const readers = await Promise.all(
    Array.from({ length: clients }, () =>
      openSse(server, id, {
        lastEventId: String(created.body.lastEventId),
      })),
  );
  provider.push({ tokens: tokens(n) });
  const t0 = performance.now();
  await call(server, "POST", `/v1/sessions/${id}/messages`, { text: "go" });
  await Promise.all(
    readers.map((r) => r.until((f) => f.event === "server:idle")),
  );
  const ms = performance.now() - t0;
  const events = readers[0]?.frames.filter((f) => f.id !== undefined).length ??
    0;
  for (const r of readers) await r.close();
  return (events * clients) / (ms / 1000);
}

// 1. Events per second (delivered frames, summed over clients).
for (const clients of [1, 50]) {
  const runs: number[] = [];
  for (let i = 0; i < 5; i++) runs.push(await fanOut(clients, 5000));
  out.push(
    `events/s to ${clients} client(s), 5,000-token turn: median ${
      Math.round(median(runs))
    } (runs ${runs.map((r) => Math.round(r)).join(", ")})`,
  );
}

// 2. A short turn's latency through serve against in-process, the two
// alternating turn by turn.
const viaServe: number[] = [];
const inProcess: number[] = [];
{
  const created = await call(server, "POST", "/v1/sessions", {});
  const id = String(created.body.sessionId);
  const reader = await openSse(server, id, {
    lastEventId: String(created.body.lastEventId),
  });
  const store = openSqliteStore(`${dir}/inproc.db`);
  const live = openSession({
    store,
    runtime: denoRuntime({
      env: { get: (n) => folder.env[n] },
      providers: [{
        id: "fake",
        kind: "openai-compatible",
        baseUrl: provider.url,
        allowLocal: true,
      }],
      workingDir: `${dir}/proj`,
    }),
    agent: {
      id: "fake",
      model: "fake-model",
      provider: "fake",
      system_prompt: "Be terse.",
    },
  });
  const drained = (async () => {
    for await (const _ of live.events) { /* read */ }
  })();
  for (let i = 0; i < 21; i++) {
    provider.push({ tokens: tokens(10) });
    const seen = reader.frames.length;
    let t0 = performance.now();
    await call(server, "POST", `/v1/sessions/${id}/messages`, { text: "go" });
    await reader.until((f) =>
      f.event === "server:idle" && reader.frames.indexOf(f) >= seen
    );
    viaServe.push(performance.now() - t0);
    provider.push({ tokens: tokens(10) });
    t0 = performance.now();
    await live.session.sendMessage("go");
    inProcess.push(performance.now() - t0);
  }
  await reader.close();
  live.close();
  await drained;
  store.close();
}
out.push(
  `10-token turn, median of 21 (alternating): via serve (POST to server:idle on the stream) ${
    median(viaServe).toFixed(2)
  } ms, in-process sendMessage ${median(inProcess).toFixed(2)} ms, added ${
    (median(viaServe) - median(inProcess)).toFixed(2)
  } ms`,
);

// 3. Memory per idle client.
{
  const created = await call(server, "POST", "/v1/sessions", {});
  const id = String(created.body.sessionId);
  const before = rssOf(pid, "VmRSS");
  const idle = [];
  for (let i = 0; i < 200; i++) idle.push(await openSse(server, id));
  const after = rssOf(pid, "VmRSS");
  out.push(
    `idle clients: 200 streams added ${
      ((after - before) / 1024 / 1024).toFixed(1)
    } MiB RSS, ${((after - before) / 200 / 1024).toFixed(1)} KiB each`,
  );
  for (const r of idle) await r.close();
}

// 4. 100 concurrent sessions, each streaming a 1,000-token answer.
{
  const ids: string[] = [];
  const cursors: string[] = [];
  for (let i = 0; i < 100; i++) {
    const created = await call(server, "POST", "/v1/sessions", {});
    ids.push(String(created.body.sessionId));
    cursors.push(String(created.body.lastEventId));
  }
  const readers = await Promise.all(
    ids.map((id, i) => openSse(server, id, { lastEventId: cursors[i] ?? "" })),
  );
  for (let i = 0; i < 100; i++) provider.push({ tokens: tokens(1000) });
  const t0 = performance.now();
  await Promise.all(
    ids.map((id) =>
      call(server, "POST", `/v1/sessions/${id}/messages`, { text: "go" })
    ),
  );
  const idles = await Promise.all(
    readers.map((r) => r.until((f) => f.event === "server:idle")),
  );
  const ms = performance.now() - t0;
  const complete =
    idles.filter((f) => JSON.parse(f?.data ?? "{}").outcome === "completed")
      .length;
  const tokenCounts = readers.map((r) =>
    r.frames.filter((f) => f.event === "agent:token").length
  );
  out.push(
    `100 sessions × 1,000 tokens: ${complete}/100 completed, every stream ${
      tokenCounts.every((n) => n === 1000) ? "had" : "did NOT have"
    } 1,000 tokens, ${(ms / 1000).toFixed(2)} s wall, peak RSS ${
      (rssOf(pid, "VmHWM") / 1024 / 1024).toFixed(0)
    } MiB`,
  );
  for (const r of readers) await r.close();
}

await server.stop();
await Deno.remove(dir, { recursive: true });
await Deno.stdout.write(new TextEncoder().encode(`${out.join("\n")}\n`));
