/**
 * Real parts for the server's tests: a loopback OpenAI-compatible
 * provider whose answers the test paces, a folder with a home config
 * declaring it, `relavium serve --port 0` as a child process, and a
 * fetch-based SSE reader. Every wait is bounded; every server and child
 * ends with the test.
 */
import { cliRunArgs } from "../cli/_child.ts";

/** One scripted answer: text tokens, or a tool call. */
export type Script =
  | { tokens: string[]; gate?: { after: number; open: Promise<void> } }
  | { tool: { name: string; args: Record<string, unknown> } };

/** A loopback provider answering scripts in order. */
export interface FakeProvider extends AsyncDisposable {
  /** `http://127.0.0.1:<port>/v1` */
  url: string;
  /** Queues the answer to the next request. */
  push(script: Script): void;
  /** How many requests it got. */
  requests(): number;
}

function chunk(delta: Record<string, unknown>, finish?: string): string {
  return `data: ${
    JSON.stringify({
      id: "c1",
      object: "chat.completion.chunk",
      created: 1,
      model: "fake-model",
      choices: [{ index: 0, delta, finish_reason: finish ?? null }],
    })
  }\n\n`;
}

const USAGE = `data: ${
  JSON.stringify({
    id: "c1",
    object: "chat.completion.chunk",
    created: 1,
    model: "fake-model",
    choices: [],
    usage: { prompt_tokens: 11, completion_tokens: 7, total_tokens: 18 },
  })
}\n\ndata: [DONE]\n\n`;

/**
 * Starts the provider.
 *
 * @returns The provider.
 */
export function fakeProvider(): FakeProvider {
  const scripts: Script[] = [];
  let count = 0;
  const enc = new TextEncoder();
  const server = Deno.serve(
    { hostname: "127.0.0.1", port: 0, onListen() {} },
    async (req) => {
      await req.text();
      count++;
      const script = scripts.shift() ?? { tokens: ["(no script)"] };
      const body = new ReadableStream<Uint8Array>({
        async start(c): Promise<void> {
          c.enqueue(enc.encode(chunk({ role: "assistant", content: "" })));
          if ("tool" in script) {
            c.enqueue(enc.encode(chunk({
              tool_calls: [{
                index: 0,
                id: "call_1",
                type: "function",
                function: {
                  name: script.tool.name,
                  arguments: JSON.stringify(script.tool.args),
                },
              }],
            })));
            c.enqueue(enc.encode(chunk({}, "tool_calls")));
          } else {
            for (const [i, t] of script.tokens.entries()) {
              if (script.gate !== undefined && i === script.gate.after) {
                await script.gate.open;
              }
              c.enqueue(enc.encode(chunk({ content: t })));
            }
            c.enqueue(enc.encode(chunk({}, "stop")));
          }
          c.enqueue(enc.encode(USAGE));
          c.close();
        },
      });
      return new Response(body, {
        headers: { "content-type": "text/event-stream" },
      });
    },
  );
  return {
    url: `http://127.0.0.1:${server.addr.port}/v1`,
    push: (s) => void scripts.push(s),
    requests: () => count,
    async [Symbol.asyncDispose](): Promise<void> {
      await server.shutdown();
    },
  };
}

/** The environment every child gets. */
export interface Folder {
  dir: string;
  env: Record<string, string>;
}

/**
 * A temp folder: `home/config.toml` declaring the provider (and `serve`
 * settings), a project marker and an agent file with `tools`.
 *
 * @param dir The folder.
 * @param providerUrl The provider's base URL.
 * @param serve Extra `[serve]` lines.
 * @returns The folder and the children's environment.
 */
export async function prepareFolder(
  dir: string,
  providerUrl: string,
  serve: string[] = [],
): Promise<Folder> {
  await Deno.mkdir(`${dir}/home`, { recursive: true });
  await Deno.mkdir(`${dir}/proj/.relavium`, { recursive: true });
  await Deno.writeTextFile(
    `${dir}/home/config.toml`,
    [
      "[preferences]",
      'default_model = "fake-model"',
      'default_provider = "fake"',
      "",
      "[[providers]]",
      'id = "fake"',
      'kind = "openai-compatible"',
      `base_url = "${providerUrl}"`,
      "allow_local = true",
      "",
      "[serve]",
      ...(serve.some((l) => l.startsWith("heartbeat_ms"))
        ? []
        : ["heartbeat_ms = 60000"]),
      ...serve,
      "",
    ].join("\n"),
  );
  await Deno.writeTextFile(
    `${dir}/proj/a.agent.yaml`,
    [
      "id: fake",
      "name: Fake",
      "model: fake-model",
      "provider: fake",
      "system_prompt: Be terse.",
      "tools:",
      "  - write_file",
      "",
    ].join("\n"),
  );
  return {
    dir,
    env: {
      RELAVIUM_HOME: `${dir}/home`,
      RELAVIUM_FAKE_API_KEY: "sk-test-fake-0123456789",
      NO_COLOR: "1",
      PATH: Deno.env.get("PATH") ?? "/usr/bin:/bin",
    },
  };
}

/** A running `relavium serve`. */
export interface ServeChild extends AsyncDisposable {
  /** `http://127.0.0.1:<port>` */
  url: string;
  /** The generated token. */
  token: string;
  /** Its process id. */
  pid: number;
  /** Sends a signal and waits for the exit; returns code and stderr. */
  stop(signal?: Deno.Signal): Promise<{ code: number; stderr: string }>;
}

/**
 * Starts `relavium serve --port 0` in `<dir>/proj` and reads its two
 * first lines.
 *
 * @param folder The folder and env.
 * @param args Further arguments.
 * @returns The child.
 */
export async function startServe(
  folder: Folder,
  args: string[] = [],
): Promise<ServeChild> {
  const child = new Deno.Command(Deno.execPath(), {
    args: cliRunArgs(["serve", "--port", "0", ...args]),
    cwd: `${folder.dir}/proj`,
    clearEnv: true,
    env: folder.env,
    stdin: "null",
    stdout: "piped",
    stderr: "piped",
  }).spawn();
  const stderr = new Response(child.stderr).text();
  const reader = child.stdout.pipeThrough(new TextDecoderStream()).getReader();
  let text = "";
  for (let i = 0; i < 1000 && text.split("\n").length < 3; i++) {
    const { value, done } = await reader.read();
    if (done) break;
    text += value;
  }
  const rest = (async () => {
    for (let i = 0; i < 100_000; i++) {
      const { done } = await reader.read();
      if (done) break;
    }
  })();
  const [listen, tokenLine] = text.split("\n");
  const url = /^Listening on (http:\/\/\S+)$/.exec(listen ?? "")?.[1];
  const token = /^Token: (\S+)$/.exec(tokenLine ?? "")?.[1];
  let stopped: Promise<{ code: number; stderr: string }> | undefined;
  const stop = (signal: Deno.Signal = "SIGTERM") => {
    stopped ??= (async () => {
      try {
        child.kill(signal);
      } catch {
        // Already ended.
      }
      const status = await child.status;
      await rest;
      return { code: status.code, stderr: await stderr };
    })();
    return stopped;
  };
  if (url === undefined || token === undefined) {
    const { stderr: err } = await stop("SIGKILL");
    throw new Error(`serve did not start: ${text}\n${err}`);
  }
  return {
    url,
    token,
    pid: child.pid,
    stop,
    async [Symbol.asyncDispose](): Promise<void> {
      await stop("SIGKILL");
    },
  };
}

/** A JSON request with the bearer token. */
export async function call(
  s: { url: string; token: string },
  method: string,
  path: string,
  body?: unknown,
  headers: Record<string, string> = {},
): Promise<{ status: number; body: Record<string, unknown> }> {
  const r = await fetch(`${s.url}${path}`, {
    method,
    headers: {
      authorization: `Bearer ${s.token}`,
      ...(body === undefined ? {} : { "content-type": "application/json" }),
      ...headers,
    },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  const text = await r.text();
  let parsed: Record<string, unknown> = {};
  try {
    parsed = JSON.parse(text);
  } catch {
    parsed = { text };
  }
  return { status: r.status, body: parsed };
}

/**
 * Starts a session of the folder's agent through `POST /v1/sessions`.
 *
 * @returns Its id; the test fails unless the answer is 201.
 */
export async function newSession(
  s: { url: string; token: string },
): Promise<string> {
  const created = await call(s, "POST", "/v1/sessions", {
    agent: "a.agent.yaml",
  });
  if (created.status !== 201) {
    throw new Error(`POST /v1/sessions: ${JSON.stringify(created)}`);
  }
  return String(created.body["sessionId"]);
}

/** One SSE frame. */
export interface Frame {
  id?: string;
  event?: string;
  data?: string;
  retry?: number;
}

/** A fetch-based SSE reader. */
export interface SseReader {
  /** The response status. */
  status: number;
  /** Frames read so far. */
  frames: Frame[];
  /** Reads until a frame matches (or the stream ends); bounded. */
  until(done: (f: Frame) => boolean): Promise<Frame | undefined>;
  /** Drops the connection. */
  close(): Promise<void>;
  /** Whether the stream ended (or broke). */
  ended(): boolean;
}

/**
 * Opens a session's stream.
 *
 * @param s The server.
 * @param sessionId The session.
 * @param options A cursor (`Last-Event-ID`), query, and whether to send the token.
 * @returns The reader.
 */
export async function openSse(
  s: { url: string; token: string },
  sessionId: string,
  options: { lastEventId?: string; query?: string; auth?: boolean } = {},
): Promise<SseReader> {
  const abort = new AbortController();
  const r = await fetch(
    `${s.url}/v1/sessions/${sessionId}/events${options.query ?? ""}`,
    {
      signal: abort.signal,
      headers: {
        ...(options.auth === false
          ? {}
          : { authorization: `Bearer ${s.token}` }),
        ...(options.lastEventId === undefined
          ? {}
          : { "last-event-id": options.lastEventId }),
      },
    },
  );
  const frames: Frame[] = [];
  let ended = r.body === null;
  const reader = r.body?.pipeThrough(new TextDecoderStream()).getReader();
  let buffer = "";
  const parse = (block: string): void => {
    const f: Frame = {};
    for (const line of block.split("\n")) {
      const i = line.indexOf(": ");
      const k = i === -1 ? line : line.slice(0, i);
      const v = i === -1 ? "" : line.slice(i + 2);
      if (k === "id") f.id = v;
      else if (k === "event") f.event = v;
      else if (k === "data") f.data = v;
      else if (k === "retry") f.retry = Number(v);
    }
    frames.push(f);
  };
  return {
    status: r.status,
    frames,
    async until(done) {
      let checked = 0;
      for (let i = 0; i < 100_000; i++) {
        // Only the frames not looked at yet (a long stream stays linear).
        const found = frames.slice(checked).find(done);
        checked = frames.length;
        if (found !== undefined || ended || reader === undefined) return found;
        let got;
        try {
          got = await reader.read();
        } catch {
          ended = true;
          break;
        }
        if (got.done) {
          ended = true;
          break;
        }
        buffer += got.value;
        const blocks = buffer.split("\n\n");
        buffer = blocks.pop() ?? "";
        for (const b of blocks) parse(b);
      }
      return frames.slice(checked).find(done);
    },
    async close() {
      abort.abort();
      await reader?.cancel().catch(() => {});
      ended = true;
    },
    ended: () => ended,
  };
}

/** The `agent:token` texts of frames, in order. */
export function tokensOf(frames: readonly Frame[]): string[] {
  return frames.filter((f) => f.event === "agent:token").map((f) =>
    JSON.parse(f.data ?? "{}").token as string
  );
}

/** The sequence part of an id. */
export function seqOf(id: string | undefined): number {
  return Number(id?.split(".")[1] ?? NaN);
}
