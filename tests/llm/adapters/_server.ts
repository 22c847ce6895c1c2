/**
 * Loopback servers and fixture helpers for the adapter conformance tests.
 * Every server answers a fixed list of replies (extra requests get a 500
 * and are recorded), binds 127.0.0.1 on a free port, and is closed by the
 * test. No sleeps: tests wait on explicit promises, bounded by `within`.
 */
import type {
  LlmError,
  LlmProvider,
  LlmRequest,
  StreamChunk,
} from "../../../llm/mod.ts";
import { streamChunkSchema } from "../../../llm/_chunk_schema.ts";
import assert from "node:assert/strict";

/** One request as the server saw it. */
export interface Recorded {
  method: string;
  path: string;
  headers: Headers;
  body: string;
}

/** Produces the response to one request. */
export type Reply = (req: Request) => Response | Promise<Response>;

/** A running loopback server. */
export interface TestServer {
  /** `http://127.0.0.1:<port>` */
  url: string;
  /** Requests received, in order. */
  requests: Recorded[];
  /** Stops the server and waits until it is done. */
  close(): Promise<void>;
}

/** Starts a server that answers the N-th request with `replies[N]`. */
export function serve(replies: readonly Reply[]): TestServer {
  const requests: Recorded[] = [];
  const server = Deno.serve(
    { hostname: "127.0.0.1", port: 0, onListen() {} },
    async (req) => {
      const body = await req.text();
      const url = new URL(req.url);
      requests.push({
        method: req.method,
        path: url.pathname,
        headers: req.headers,
        body,
      });
      const reply = replies[requests.length - 1];
      if (reply === undefined) {
        return new Response(`unexpected request #${requests.length}`, {
          status: 500,
        });
      }
      return await reply(req);
    },
  );
  return {
    url: `http://127.0.0.1:${server.addr.port}`,
    requests,
    close: () => server.shutdown(),
  };
}

/** The bytes of `tests/fixtures/<provider>/<name>`. */
export function fixture(provider: string, name: string): Uint8Array {
  return Deno.readFileSync(
    new URL(`../../fixtures/${provider}/${name}`, import.meta.url),
  );
}

/** A body stream that delivers `bytes` in pieces of `piece` bytes. */
function piecewise(
  bytes: Uint8Array,
  piece: number,
): ReadableStream<Uint8Array> {
  let offset = 0;
  return new ReadableStream({
    pull(controller): void {
      if (offset >= bytes.length) {
        controller.close();
        return;
      }
      controller.enqueue(bytes.slice(offset, offset + piece));
      offset += piece;
    },
  });
}

/** Replies with a recorded SSE body, delivered in `piece`-byte writes. */
export function sse(bytes: Uint8Array, piece = 7): Reply {
  return () =>
    new Response(piecewise(bytes, piece), {
      headers: { "content-type": "text/event-stream; charset=utf-8" },
    });
}

/** Parses a `.http` fixture: status line, headers, blank line, body. */
export function parseHttp(
  bytes: Uint8Array,
): { status: number; headers: Headers; body: string } {
  const text = new TextDecoder().decode(bytes);
  const split = text.indexOf("\n\n");
  const head = text.slice(0, split).split("\n");
  const status = Number(/^HTTP\/1\.1 (\d{3})/.exec(head[0] ?? "")?.[1]);
  const headers = new Headers();
  for (const line of head.slice(1)) {
    const colon = line.indexOf(":");
    headers.append(line.slice(0, colon).trim(), line.slice(colon + 1).trim());
  }
  return { status, headers, body: text.slice(split + 2) };
}

/** Replies with a recorded `.http` response. */
export function http(
  bytes: Uint8Array,
  override: Record<string, string> = {},
): Reply {
  const { status, headers, body } = parseHttp(bytes);
  for (const [k, v] of Object.entries(override)) headers.set(k, v);
  return () => new Response(body, { status, headers });
}

/** Replies with `body` as JSON under `status` (an API's error response). */
export function json(
  status: number,
  body: unknown,
  headers: Record<string, string> = {},
): Reply {
  return () =>
    new Response(JSON.stringify(body), {
      status,
      headers: { "content-type": "application/json", ...headers },
    });
}

/**
 * Replies with `bytes`, then holds the stream open until the client goes
 * away; `closed` settles when the server sees the connection closed.
 */
export function held(
  bytes: Uint8Array,
): { reply: Reply; closed: Promise<void>; pulls: () => number } {
  let markClosed = (): void => {};
  const closed = new Promise<void>((resolve) => markClosed = resolve);
  let pulls = 0;
  const reply: Reply = () =>
    new Response(
      new ReadableStream<Uint8Array>({
        start(controller): void {
          controller.enqueue(bytes);
        },
        pull(): Promise<void> {
          pulls++;
          return closed; // never delivers more; ends when cancelled
        },
        cancel(): void {
          markClosed();
        },
      }),
      { headers: { "content-type": "text/event-stream" } },
    );
  return { reply, closed, pulls: () => pulls };
}

/**
 * A raw TCP server that answers one request with a chunked SSE response
 * carrying `bytes`, then closes the socket without the terminating chunk:
 * a connection cut mid-stream.
 */
export function cutServer(
  bytes: Uint8Array,
): { url: string; done: Promise<void> } {
  const listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const done = (async (): Promise<void> => {
    const conn = await listener.accept();
    try {
      const buf = new Uint8Array(65536);
      let seen = "";
      while (!seen.includes("\r\n\r\n")) {
        const n = await conn.read(buf);
        if (n === null) break;
        seen += new TextDecoder().decode(buf.subarray(0, n));
      }
      const length = Number(/content-length: (\d+)/i.exec(seen)?.[1] ?? "0");
      let got = seen.length - seen.indexOf("\r\n\r\n") - 4;
      while (got < length) {
        const n = await conn.read(buf);
        if (n === null) break;
        got += n;
      }
      const enc = new TextEncoder();
      const head =
        "HTTP/1.1 200 OK\r\ncontent-type: text/event-stream\r\ntransfer-encoding: chunked\r\n\r\n";
      const chunk = new Uint8Array([
        ...enc.encode(`${bytes.length.toString(16)}\r\n`),
        ...bytes,
        ...enc.encode("\r\n"),
      ]);
      await conn.write(new Uint8Array([...enc.encode(head), ...chunk]));
    } finally {
      conn.close();
      listener.close();
    }
  })();
  const addr = listener.addr as Deno.NetAddr;
  return { url: `http://127.0.0.1:${addr.port}`, done };
}

/**
 * A raw TCP server that accepts and reads, and never writes a byte; it
 * counts the connections it accepted and those the client closed.
 */
export function silentServer(): {
  url: string;
  accepted: () => number;
  closed: () => number;
  close: () => void;
} {
  const listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  let accepted = 0;
  let closed = 0;
  const conns = new Set<Deno.Conn>();
  (async () => {
    for await (const conn of listener) {
      accepted++;
      conns.add(conn);
      (async () => {
        const buf = new Uint8Array(4096);
        try {
          while ((await conn.read(buf)) !== null) { /* drain */ }
        } catch { /* reset by the client */ }
        closed++;
        conns.delete(conn);
        try {
          conn.close();
        } catch { /* already closed */ }
      })();
    }
  })().catch(() => {});
  const addr = listener.addr as Deno.NetAddr;
  return {
    url: `http://127.0.0.1:${addr.port}`,
    accepted: () => accepted,
    closed: () => closed,
    close: () => {
      listener.close();
      for (const c of conns) {
        try {
          c.close();
        } catch { /* gone */ }
      }
    },
  };
}

/** Rejects when `promise` takes longer than `ms` (a guard, never a delay). */
export async function within<T>(
  promise: Promise<T>,
  ms: number,
  label: string,
): Promise<T> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(
      () => reject(new Error(`Timed out waiting for ${label}`)),
      ms,
    );
  });
  try {
    return await Promise.race([promise, timeout]);
  } finally {
    clearTimeout(timer);
  }
}

/** Collects every chunk of a stream (bounded: at most 10,000). */
export async function collect(
  stream: AsyncIterable<StreamChunk>,
): Promise<StreamChunk[]> {
  const out: StreamChunk[] = [];
  for await (const chunk of stream) {
    out.push(chunk);
    if (out.length > 10_000) throw new Error("Stream did not end");
  }
  return out;
}

/**
 * Checks the chunk contract: every chunk valid under the strict schema,
 * exactly one terminal, last. Returns the terminal.
 */
export function terminal(chunks: readonly StreamChunk[]): StreamChunk {
  for (const c of chunks) {
    assert.ok(
      streamChunkSchema.safeParse(c).success,
      `invalid chunk ${JSON.stringify(c)}`,
    );
  }
  const terminals = chunks.filter((c) =>
    c.type === "stop" || c.type === "error"
  );
  assert.equal(
    terminals.length,
    1,
    `expected one terminal, got ${JSON.stringify(chunks)}`,
  );
  const last = chunks[chunks.length - 1];
  assert.ok(
    last !== undefined && (last.type === "stop" || last.type === "error"),
  );
  return last;
}

/** The concatenated text of `text_delta` chunks. */
export function textOf(chunks: readonly StreamChunk[]): string {
  return chunks.map((c) => c.type === "text_delta" ? c.text : "").join("");
}

/** The concatenated args of one tool call. */
export function argsOf(chunks: readonly StreamChunk[], id: string): string {
  return chunks.map((c) =>
    c.type === "tool_call_delta" && c.id === id ? c.argsJsonDelta : ""
  ).join("");
}

/** A user-text request. */
export function ask(model: string, text = "Hi"): {
  model: string;
  messages: { role: "user"; content: { type: "text"; text: string }[] }[];
} {
  return {
    model,
    messages: [{ role: "user", content: [{ type: "text", text }] }],
  };
}

/**
 * One call of `provider(url)` against a server answering `reply`: the
 * chunks and the requests the server saw.
 */
export async function callOnce(
  provider: (url: string) => LlmProvider,
  reply: Reply,
  req: LlmRequest,
  key: string,
): Promise<{ chunks: StreamChunk[]; requests: Recorded[] }> {
  const server = serve([reply]);
  try {
    const chunks = await collect(provider(server.url).stream(req, key));
    return { chunks, requests: server.requests };
  } finally {
    await server.close();
  }
}

/**
 * The error of one call of `provider(url)` against a server answering
 * `reply`, checked to be the only chunk.
 */
export async function refusal(
  provider: (url: string) => LlmProvider,
  reply: Reply,
  req: LlmRequest,
  key: string,
): Promise<LlmError> {
  const { chunks } = await callOnce(provider, reply, req, key);
  const last = terminal(chunks);
  assert.equal(chunks.length, 1);
  assert.ok(last.type === "error");
  return last.error;
}
