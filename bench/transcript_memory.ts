/**
 * Where the memory of a long HTTP chat goes, without the CLI: N requests
 * whose body grows like a transcript (a ~36 KB system prompt, then each
 * turn adds a ~100-character question and a ~420-character answer, and
 * every request resends them all, as a chat does), in one of these modes:
 *
 * - `join`: only build the growing text (`Array.prototype.join`);
 * - `stringify`: build the body with `JSON.stringify`;
 * - `encode`: `JSON.stringify`, then `TextEncoder.encode` it;
 * - `fetch`: `fetch` it to a loopback provider and read the answer
 *   (the global client);
 * - `client-per-request`: the same, a `Deno.createHttpClient` per request,
 *   closed after it;
 * - `client-shared`: one `Deno.createHttpClient` for every request;
 * - `no-pool`: one client with `poolMaxIdlePerHost: 0`.
 *
 * At the end it prints `rss`, `heapUsed`, `heapTotal` and `external`
 * (`Deno.memoryUsage()`), the peak RSS (`VmHWM`) and the anonymous memory
 * of `/proc/self/smaps_rollup`; with `--gc` (and `--v8-flags=--expose-gc`)
 * it collects garbage twice first. The fetching modes need
 * `bench/loopback_provider.ts` running on `--port`.
 *
 * @example Run it
 * ```sh
 * deno run --allow-net bench/loopback_provider.ts --port 40391 &
 * deno run -A bench/transcript_memory.ts --mode fetch --turns 1000 --port 40391
 * deno run -A --v8-flags=--expose-gc bench/transcript_memory.ts --mode join --gc
 * ```
 *
 * @module
 */
import { flag, out } from "./_bench_util.ts";

const MODES = [
  "join",
  "stringify",
  "encode",
  "fetch",
  "client-per-request",
  "client-shared",
  "no-pool",
] as const;
type Mode = typeof MODES[number];

function modeOf(text: string): Mode {
  const mode = MODES.find((m) => m === text);
  if (mode === undefined) {
    throw new RangeError(`--mode must be one of ${MODES.join(", ")}`);
  }
  return mode;
}

function sharedClient(mode: Mode): Deno.HttpClient | undefined {
  if (mode === "client-shared") return Deno.createHttpClient({});
  if (mode === "no-pool") {
    return Deno.createHttpClient({ poolMaxIdlePerHost: 0 });
  }
  return undefined;
}

async function send(
  url: string,
  body: string,
  client: Deno.HttpClient | undefined,
): Promise<string> {
  const res = await fetch(url, {
    method: "POST",
    body,
    headers: { "content-type": "application/json" },
    ...(client === undefined ? {} : { client }),
  });
  return await res.text();
}

async function main(): Promise<void> {
  const mode = modeOf(flag("--mode", "fetch"));
  const turns = Number(flag("--turns", "1000"));
  const url = `http://127.0.0.1:${flag("--port", "40391")}/v1/chat/completions`;
  const messages: { role: string; content: string }[] = [
    { role: "system", content: "tool schema ".repeat(3000) },
  ];
  const shared = sharedClient(mode);
  let kept = 0;
  for (let i = 0; i < turns; i++) {
    messages.push({ role: "user", content: `question number ${i} `.repeat(4) });
    let answer: string;
    if (mode === "join") {
      answer = String(messages.map((m) => m.content).join(",").length);
    } else {
      const body = JSON.stringify({
        model: "gpt-4.1-mini",
        stream: true,
        messages,
      });
      if (mode === "stringify") answer = String(body.length);
      else if (mode === "encode") {
        answer = String(new TextEncoder().encode(body).length);
      } else {
        const client = mode === "client-per-request"
          ? Deno.createHttpClient({})
          : shared;
        try {
          answer = await send(url, body, client);
        } finally {
          if (mode === "client-per-request") client?.close();
        }
      }
    }
    kept += answer.length;
    messages.push({
      role: "assistant",
      content: answer.slice(0, 120) + "x".repeat(300),
    });
  }
  shared?.close();
  if (Deno.args.includes("--gc")) {
    const gc = (globalThis as { gc?: () => void }).gc;
    gc?.();
    gc?.();
  }
  const m = Deno.memoryUsage();
  const mib = (n: number) => (n / 1048576).toFixed(1);
  const status = Deno.readTextFileSync("/proc/self/status");
  const hwm = Number(/VmHWM:\s+(\d+)/.exec(status)?.[1] ?? "0") / 1024;
  const rollup = Deno.readTextFileSync("/proc/self/smaps_rollup");
  const anon = Number(/Anonymous:\s+(\d+)/.exec(rollup)?.[1] ?? "0") / 1024;
  out(
    `${mode} ${turns} turns: rss ${mib(m.rss)} MiB, peak ${
      hwm.toFixed(1)
    } MiB, anonymous ${anon.toFixed(1)} MiB, heapUsed ${
      mib(m.heapUsed)
    }, heapTotal ${mib(m.heapTotal)}, external ${
      mib(m.external)
    } (answers ${kept} chars)\n`,
  );
}

if (import.meta.main) await main();
