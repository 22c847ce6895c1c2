/**
 * A loopback OpenAI-compatible provider for whole-process benches: every
 * `POST …/chat/completions` gets the same short streamed answer (five text
 * deltas, a stop, usage, `[DONE]`) in the Chat Completions wire format.
 * Prints `port <n>` on its first line, then serves on 127.0.0.1 until
 * `--seconds` pass (default 600) or it is killed.
 *
 *   deno run --allow-net bench/loopback_provider.ts [--port 0] [--seconds 600]
 *
 * @module
 */
import { flag, out } from "./_bench_util.ts";

const enc = new TextEncoder();
const head =
  '{"id":"chatcmpl-loop","object":"chat.completion.chunk","created":1770933892,"model":"gpt-4.1-mini","choices":[{"index":0,"delta":';
const words = ["Done", ",", " as", " asked", "."];
const body = enc.encode(
  [
    ...words.map((w) =>
      `data: ${head}{"content":${
        JSON.stringify(w)
      }},"finish_reason":null}]}\n\n`
    ),
    `data: ${head}{},"finish_reason":"stop"}]}\n\n`,
    'data: {"id":"chatcmpl-loop","object":"chat.completion.chunk","created":1770933892,"model":"gpt-4.1-mini","choices":[],"usage":{"prompt_tokens":24,"completion_tokens":5,"total_tokens":29}}\n\n',
    "data: [DONE]\n\n",
  ].join(""),
);

/** Serves the answer; returns the server (its `addr` holds the port). */
export function serveLoopback(port = 0): Deno.HttpServer<Deno.NetAddr> {
  return Deno.serve(
    { hostname: "127.0.0.1", port, onListen: () => {} },
    async (req) => {
      if (req.method !== "POST" || !req.url.endsWith("/chat/completions")) {
        return new Response("not found", { status: 404 });
      }
      await req.body?.cancel();
      return new Response(body, {
        headers: { "content-type": "text/event-stream" },
      });
    },
  );
}

if (import.meta.main) {
  const server = serveLoopback(Number(flag("--port", "0")));
  out(`port ${server.addr.port}\n`);
  const seconds = Number(flag("--seconds", "600"));
  setTimeout(() => server.shutdown(), seconds * 1000);
  await server.finished;
}
