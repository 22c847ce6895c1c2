/**
 * Live text latency: a loopback Anthropic server streams `DELTAS` text
 * deltas `GAP_MS` apart; the CLI (`agent run --json` and `chat --json`, a
 * child process) prints each as an `agent:token` line. For each delta, the
 * time from the server writing it to its text on the child's stdout (one
 * process holds both ends, so one clock). Median and max per command.
 *
 *   deno run -A bench/live_text_bench.ts [--gap 700] [--deltas 6]
 *
 * @module
 */
import { parseArgs } from "node:util";
import { fileURLToPath } from "node:url";
import { median, out } from "./_bench_util.ts";
import {
  ANTHROPIC_START,
  ANTHROPIC_TEXT_BLOCK,
  anthropicDelta,
  anthropicEnd,
} from "../tests/_kit/anthropic_sse.ts";

const ROOT = fileURLToPath(new URL("../", import.meta.url));
const { values } = parseArgs({
  options: { gap: { type: "string" }, deltas: { type: "string" } },
});
const GAP_MS = Number(values.gap ?? 700);
const DELTAS = Number(values.deltas ?? 6);
const enc = new TextEncoder();
const KEY = "sk-ant-bench-3f9c1e7a5b2d4c68";

const HEAD = ANTHROPIC_START + ANTHROPIC_TEXT_BLOCK;
const TAIL = anthropicEnd(DELTAS);

async function once(argv: string[]): Promise<number[]> {
  const sent: number[] = [];
  const server = Deno.serve(
    { hostname: "127.0.0.1", port: 0, onListen() {} },
    () =>
      new Response(
        new ReadableStream<Uint8Array>({
          async start(c): Promise<void> {
            c.enqueue(enc.encode(HEAD));
            for (let i = 0; i < DELTAS; i++) {
              if (i > 0) await new Promise((r) => setTimeout(r, GAP_MS));
              sent.push(performance.now());
              c.enqueue(enc.encode(anthropicDelta(` word${i}`)));
            }
            c.enqueue(enc.encode(TAIL));
            c.close();
          },
        }),
        { headers: { "content-type": "text/event-stream" } },
      ),
  );
  const dir = await Deno.makeTempDir();
  const url = `http://127.0.0.1:${server.addr.port}`;
  await Deno.mkdir(`${dir}/.relavium`, { recursive: true });
  await Deno.writeTextFile(
    `${dir}/.relavium/project.toml`,
    `[[providers]]\nid = "fake"\nkind = "anthropic"\nbase_url = "${url}"\nallow_local = true\n`,
  );
  await Deno.writeTextFile(
    `${dir}/a.agent.yaml`,
    "id: a\nmodel: claude-sonnet-4-6\nprovider: fake\nsystem_prompt: Help.\n",
  );
  const env = {
    RELAVIUM_HOME: `${dir}/home`,
    RELAVIUM_FAKE_API_KEY: KEY,
    NO_COLOR: "1",
    PATH: Deno.env.get("PATH") ?? "",
  };
  const trust = await new Deno.Command(Deno.execPath(), {
    args: ["run", "-A", `${ROOT}cli.ts`, "trust"],
    cwd: dir,
    env,
    stdout: "null",
    stderr: "null",
  }).output();
  if (!trust.success) throw new Error("trust failed");
  const child = new Deno.Command(Deno.execPath(), {
    args: ["run", "-A", `${ROOT}cli.ts`, ...argv],
    cwd: dir,
    env,
    stdin: "piped",
    stdout: "piped",
    stderr: "null",
  }).spawn();
  const w = child.stdin.getWriter();
  await w.write(enc.encode("hi\n"));
  await w.close();
  const seen: number[] = [];
  let buffered = "";
  for await (const chunk of child.stdout.pipeThrough(new TextDecoderStream())) {
    const now = performance.now();
    buffered += chunk;
    const lines = buffered.split("\n");
    buffered = lines.pop() ?? "";
    for (const line of lines) {
      if (!line.startsWith('{"type":"agent:token"')) continue;
      const token = (JSON.parse(line) as { token: string }).token;
      for (const m of token.matchAll(/word(\d+)/g)) seen[Number(m[1])] = now;
    }
  }
  await child.status;
  await server.shutdown();
  await Deno.remove(dir, { recursive: true });
  return sent.map((at, i) => (seen[i] ?? Number.NaN) - at);
}

for (
  const [name, argv] of [
    ["agent run --json", ["agent", "run", "a.agent.yaml", "--json"]],
    ["chat --json", ["--json", "chat", "--agent", "a.agent.yaml"]],
  ] as const
) {
  const lat = await once([...argv]);
  const ok = lat.filter((x) => Number.isFinite(x));
  out(
    `${name}: ${DELTAS} deltas ${GAP_MS} ms apart; delta → stdout median ${
      median(ok).toFixed(1)
    } ms, max ${Math.max(...ok).toFixed(1)} ms (${
      lat.map((x) => x.toFixed(0)).join(", ")
    })\n`,
  );
}
