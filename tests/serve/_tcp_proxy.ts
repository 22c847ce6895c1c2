/**
 * A loopback TCP relay for the browser test: it listens on 127.0.0.1
 * (port 0) and pipes every connection, byte for byte, to a target port;
 * `sever()` closes every connection it carries (both sockets), which is
 * what a dropped network looks like to both ends. It rewrites nothing.
 * Every pipe ends when either side closes; disposing closes all.
 */

/** A running relay. */
export interface TcpProxy extends AsyncDisposable {
  /** The port it listens on (127.0.0.1). */
  port: number;
  /** Closes every connection it carries now; it keeps accepting. */
  sever(): number;
  /** How many connections it has accepted. */
  accepted(): number;
  /** The request lines (`GET /path HTTP/1.1`) clients sent, in order. */
  requestLines(): string[];
}

// Unanchored at the start: a request on a kept-alive connection follows
// the previous one's body with no line break between them.
const REQUEST_LINE =
  /(?:GET|POST|PUT|DELETE|HEAD|OPTIONS|PATCH) \S+ HTTP\/1\.1$/;
const MAX_LOGGED = 10_000;
// A bound on each pipe's reads (far above what a test sends).
const MAX_READS = 1_000_000;

/**
 * Starts the relay.
 *
 * @param target The port on 127.0.0.1 to pipe to.
 * @returns The relay.
 */
export function tcpProxy(target: number): TcpProxy {
  const listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const open = new Set<Deno.Conn>();
  const pipes = new Set<Promise<void>>();
  const lines: string[] = [];
  let accepted = 0;
  const close = (c: Deno.Conn): void => {
    open.delete(c);
    try {
      c.close();
    } catch {
      // Already closed.
    }
  };
  // Client to server: copied as is, its request lines noted (a line split
  // across reads is joined; only whole lines are matched).
  const upstream = async (from: Deno.Conn, to: Deno.Conn): Promise<void> => {
    const decoder = new TextDecoder();
    let partial = "";
    const buffer = new Uint8Array(64 * 1024);
    for (let i = 0; i < MAX_READS; i++) {
      const n = await from.read(buffer).catch(() => null);
      if (n === null) break;
      const bytes = buffer.subarray(0, n);
      const text = partial + decoder.decode(bytes, { stream: true });
      const split = text.split("\r\n");
      partial = (split.pop() ?? "").slice(-4096);
      for (const line of split) {
        const found = REQUEST_LINE.exec(line)?.[0];
        if (found !== undefined && lines.length < MAX_LOGGED) lines.push(found);
      }
      const wrote = await writeAll(to, bytes);
      if (!wrote) break;
    }
  };
  const downstream = async (from: Deno.Conn, to: Deno.Conn): Promise<void> => {
    const buffer = new Uint8Array(64 * 1024);
    for (let i = 0; i < MAX_READS; i++) {
      const n = await from.read(buffer).catch(() => null);
      if (n === null) break;
      if (!await writeAll(to, buffer.subarray(0, n))) break;
    }
  };
  const serve = (async () => {
    // Ends when the listener closes.
    for await (const client of listener) {
      accepted++;
      const pipe = (async () => {
        let server: Deno.Conn;
        try {
          server = await Deno.connect({ hostname: "127.0.0.1", port: target });
        } catch {
          close(client);
          return;
        }
        open.add(client);
        open.add(server);
        // Either direction ending ends the pair.
        await Promise.race([
          upstream(client, server),
          downstream(server, client),
        ]);
        close(client);
        close(server);
      })();
      pipes.add(pipe);
      pipe.finally(() => pipes.delete(pipe));
    }
  })().catch(() => {});
  return {
    port: (listener.addr as Deno.NetAddr).port,
    sever() {
      const n = open.size;
      for (const c of [...open]) close(c);
      return n;
    },
    accepted: () => accepted,
    requestLines: () => [...lines],
    async [Symbol.asyncDispose](): Promise<void> {
      listener.close();
      for (const c of [...open]) close(c);
      await serve;
      await Promise.allSettled([...pipes]);
    },
  };
}

async function writeAll(to: Deno.Conn, bytes: Uint8Array): Promise<boolean> {
  let offset = 0;
  while (offset < bytes.length) {
    const n = await to.write(bytes.subarray(offset)).catch(() => null);
    if (n === null) return false;
    offset += n;
  }
  return true;
}
