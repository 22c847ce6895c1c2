/**
 * Headless Chromium driven over the DevTools protocol with Deno's own
 * `WebSocket` (no npm package): launch, evaluate, wait, screenshot.
 * Every wait is bounded; `close()` ends the browser.
 */

/** The browser binary, when installed. */
export function chromiumPath(): string | undefined {
  for (const p of ["/usr/bin/chromium", "/usr/bin/chromium-browser"]) {
    try {
      if (Deno.statSync(p).isFile) return p;
    } catch {
      // Not there.
    }
  }
  return undefined;
}

/** A page under remote control. */
export interface Page extends AsyncDisposable {
  /** Sends one protocol command and waits for its answer. */
  send(method: string, params?: Record<string, unknown>): Promise<unknown>;
  /** Evaluates an expression in the page (promises awaited). */
  evaluate<T>(expression: string): Promise<T>;
  /** Evaluates until the result is truthy; bounded (about 20 s). */
  waitFor<T>(expression: string, what: string): Promise<T>;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/**
 * Launches headless Chromium with its profile under `dir`.
 *
 * @param binary The browser.
 * @param dir A temp folder.
 * @param options `proxy`: an HTTP proxy (`127.0.0.1:<port>`) every
 * request goes through, loopback ones included.
 * @returns The page.
 */
export async function launch(
  binary: string,
  dir: string,
  options: { proxy?: string } = {},
): Promise<Page> {
  const profile = `${dir}/chrome-profile`;
  await Deno.mkdir(profile, { recursive: true });
  const child = new Deno.Command(binary, {
    args: [
      "--headless=new",
      "--no-sandbox",
      "--disable-gpu",
      "--disable-dev-shm-usage",
      "--no-first-run",
      // No update checks or other traffic of the browser's own.
      "--disable-background-networking",
      "--disable-component-update",
      `--user-data-dir=${profile}`,
      ...(options.proxy === undefined ? [] : [
        `--proxy-server=http://${options.proxy}`,
        // Chromium sends loopback requests direct unless told not to.
        "--proxy-bypass-list=<-loopback>",
      ]),
      "--remote-debugging-address=127.0.0.1",
      "--remote-debugging-port=0",
      "about:blank",
    ],
    stdin: "null",
    stdout: "null",
    stderr: "null",
  }).spawn();
  const stop = async (): Promise<void> => {
    try {
      child.kill("SIGKILL");
    } catch {
      // Already ended.
    }
    await child.status;
  };
  try {
    let port: number | undefined;
    for (let i = 0; i < 300 && port === undefined; i++) {
      try {
        const text = await Deno.readTextFile(`${profile}/DevToolsActivePort`);
        const n = Number(text.split("\n")[0]);
        if (n > 0) port = n;
      } catch {
        await sleep(50);
      }
    }
    if (port === undefined) throw new Error("Chromium did not start");
    let wsUrl: string | undefined;
    for (let i = 0; i < 100 && wsUrl === undefined; i++) {
      const list = await (await fetch(`http://127.0.0.1:${port}/json/list`))
        .json() as Array<{ type: string; webSocketDebuggerUrl: string }>;
      wsUrl = list.find((t) => t.type === "page")?.webSocketDebuggerUrl;
      if (wsUrl === undefined) await sleep(50);
    }
    if (wsUrl === undefined) throw new Error("Chromium has no page");
    const ws = new WebSocket(wsUrl);
    await new Promise((resolve, reject) => {
      ws.onopen = resolve;
      ws.onerror = reject;
    });
    let next = 1;
    const waiting = new Map<
      number,
      { resolve(v: unknown): void; reject(e: Error): void }
    >();
    ws.onmessage = (m) => {
      const msg = JSON.parse(String(m.data));
      const w = waiting.get(msg.id);
      if (w === undefined) return;
      waiting.delete(msg.id);
      if (msg.error !== undefined) w.reject(new Error(msg.error.message));
      else w.resolve(msg.result);
    };
    const send = (method: string, params: Record<string, unknown> = {}) =>
      new Promise<unknown>((resolve, reject) => {
        const id = next++;
        waiting.set(id, { resolve, reject });
        ws.send(JSON.stringify({ id, method, params }));
      });
    const evaluate = async <T>(expression: string): Promise<T> => {
      const r = await send("Runtime.evaluate", {
        expression,
        awaitPromise: true,
        returnByValue: true,
      }) as {
        result: { value: T };
        exceptionDetails?: {
          text: string;
          exception?: { description?: string };
        };
      };
      if (r.exceptionDetails !== undefined) {
        throw new Error(
          r.exceptionDetails.exception?.description ?? r.exceptionDetails.text,
        );
      }
      return r.result.value;
    };
    await send("Page.enable");
    await send("Runtime.enable");
    return {
      send,
      evaluate,
      async waitFor<T>(expression: string, what: string): Promise<T> {
        for (let i = 0; i < 400; i++) {
          const v = await evaluate<T>(expression).catch(() => undefined);
          if (v) return v;
          await sleep(50);
        }
        throw new Error(`Timed out waiting for ${what}`);
      },
      async [Symbol.asyncDispose](): Promise<void> {
        ws.close();
        await stop();
      },
    };
  } catch (e) {
    await stop();
    throw e;
  }
}
