/**
 * What the terminal chat says while it waits and after a stop: the
 * thinking clock counts from the first reasoning delta, a retry names the
 * failure it retries, and an aborted turn whose call reported no tokens
 * says they are unknown instead of `0 in / 0 out`. Driven in process with
 * a terminal io and a provider transport that speaks the OpenAI wire
 * format (DeepSeek's built-in entry).
 */
import assert from "node:assert/strict";
import { createStatusLine } from "../../../cli/chat/status.ts";
import { createBufferedIo } from "../../../cli/io/io.ts";
import { main } from "../../../cli/main.ts";
import { lineStdin, tempDir } from "../_helpers.ts";

Deno.test("createStatusLine() keeps the clock when the same wait is shown again (reasoning deltas)", () => {
  let now = 1_000;
  let tick: () => void = () => {};
  const out: string[] = [];
  const status = createStatusLine({
    write: (t) => out.push(t),
    now: () => now,
    every: (_ms, t) => {
      tick = t;
      return () => {};
    },
    color: false,
  });
  status.show({ kind: "thinking", model: "m" });
  for (let i = 1; i <= 15; i++) {
    now += 100;
    status.show({ kind: "thinking", model: "m" });
  }
  tick();
  assert.match(out.at(-1) ?? "", /m is thinking · 1\.5s/);
  status.show({ kind: "model", model: "m" });
  assert.match(
    out.at(-1) ?? "",
    /Waiting for m · 0\.0s/,
    "a new wait restarts",
  );
});

function sse(deltas: string[]): Response {
  const lines = deltas.map((d) =>
    `data: ${
      JSON.stringify({
        id: "c1",
        object: "chat.completion.chunk",
        choices: [{ index: 0, delta: { content: d }, finish_reason: null }],
      })
    }\n\n`
  );
  const end = `data: ${
    JSON.stringify({
      id: "c1",
      object: "chat.completion.chunk",
      choices: [{ index: 0, delta: {}, finish_reason: "stop" }],
      usage: { prompt_tokens: 5, completion_tokens: 2, total_tokens: 7 },
    })
  }\n\ndata: [DONE]\n\n`;
  return new Response(lines.join("") + end, {
    headers: { "content-type": "text/event-stream" },
  });
}

function terminalIo(
  home: string,
  cwd: string,
  fetch: (input: string, init: RequestInit) => Promise<Response>,
) {
  return createBufferedIo({
    env: { RELAVIUM_HOME: home, NO_COLOR: "1", DEEPSEEK_API_KEY: "sk-test" },
    cwd,
    stdin: lineStdin(["hi"]),
    stdinIsTerminal: true,
    stdoutIsTerminal: true,
    stderrIsTerminal: true,
    fetch,
  });
}

Deno.test("chat on a terminal: a retry names the failure it retries (429 rate limited)", async () => {
  await using dir = await tempDir();
  let calls = 0;
  const b = terminalIo(`${dir.path}/home`, dir.path, () => {
    calls++;
    if (calls === 1) {
      return Promise.resolve(
        new Response(
          JSON.stringify({ error: { message: "slow down", type: "rate" } }),
          {
            status: 429,
            headers: { "content-type": "application/json", "retry-after": "1" },
          },
        ),
      );
    }
    return Promise.resolve(sse(["Hello."]));
  });
  const code = await main(["chat", "--model", "deepseek-chat"], b.io);
  assert.equal(code, 4, b.stderrText());
  assert.equal(calls, 2);
  assert.match(
    b.stderrText(),
    /Retrying deepseek-chat in \d+\.\ds \(429 rate limited\)/,
  );
  assert.match(b.stdoutText(), /Hello\./);
});

Deno.test("chat on a terminal: an aborted turn whose call reported no tokens says so, not 0 in / 0 out", async () => {
  await using dir = await tempDir();
  let arrived: () => void = () => {};
  const arrival = new Promise<void>((r) => arrived = r);
  const b = terminalIo(
    `${dir.path}/home`,
    dir.path,
    (_input, init) => {
      arrived();
      // A stream that sends one delta and then nothing until the abort.
      const body = new ReadableStream<Uint8Array>({
        start(controller) {
          controller.enqueue(
            new TextEncoder().encode(
              `data: ${
                JSON.stringify({
                  id: "c1",
                  object: "chat.completion.chunk",
                  choices: [{
                    index: 0,
                    delta: { content: "Part" },
                    finish_reason: null,
                  }],
                })
              }\n\n`,
            ),
          );
          init.signal?.addEventListener("abort", () => {
            try {
              controller.error(init.signal?.reason);
            } catch {
              // Already closed.
            }
          }, { once: true });
        },
      });
      return Promise.resolve(
        new Response(body, {
          headers: { "content-type": "text/event-stream" },
        }),
      );
    },
  );
  const running = main(["chat", "--model", "deepseek-chat"], b.io);
  await arrival;
  // Ctrl-C while the turn runs aborts it; the chat goes on to its end.
  assert.ok(b.raise("SIGINT") > 0);
  assert.equal(await running, 4, b.stderrText());
  const err = b.stderrText();
  assert.match(err, /\[turn aborted\]/);
  assert.match(err, /\[tokens unknown: the call was stopped before/);
  assert.doesNotMatch(err, /\[0 in \/ 0 out tokens/);
});
