/**
 * Runs the real CLI on a pseudo-terminal: `tests/_kit/pty_run.py` (Python
 * standard library `pty`) puts the process on a terminal of a given size
 * and relays bytes; the test sends keystrokes and reads what the program
 * drew. Every wait polls the output with a deadline and fails with the
 * screen's tail, so a test never hangs.
 */
import { fileURLToPath } from "node:url";
import { cliRunArgs } from "./_child.ts";

const DRIVER = fileURLToPath(
  new URL("../_kit/pty_run.py", import.meta.url),
);

/** How long one wait may take before the test fails (a bound, not a timing). */
const WAIT_MS = 30_000;

/** A CLI process on a pseudo-terminal. */
export interface PtyChild extends AsyncDisposable {
  /** Types keys (bytes as the terminal would send them). */
  type(keys: string): Promise<void>;
  /** Everything drawn so far, raw (escape sequences included). */
  raw(): string;
  /** Everything drawn so far as text: escape sequences and CRs removed. */
  text(): string;
  /**
   * Waits until `pattern` appears in {@linkcode PtyChild.text} after
   * offset `from`.
   *
   * @returns The offset just past the match.
   */
  waitFor(pattern: string | RegExp, from?: number): Promise<number>;
  /** Resolves with the exit code when the program ends. */
  readonly exited: Promise<number>;
  /** Waits (bounded) for the program to end. */
  waitExit(): Promise<number>;
}

/** Removes escape sequences and CRs. */
export function screenText(raw: string): string {
  return raw
    // deno-lint-ignore no-control-regex
    .replace(/\x1b\[[0-9;?]*[ -/]*[@-~]/g, "")
    // deno-lint-ignore no-control-regex
    .replace(/\x1b[()][0-9A-Za-z]|\x1b[=>78]/g, "")
    .replaceAll("\r", "");
}

function bounded<T>(
  what: string,
  p: Promise<T>,
  tail: () => string,
): Promise<T> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const limit = new Promise<never>((_, reject) => {
    timer = setTimeout(
      () =>
        reject(
          new Error(`Timed out waiting for ${what}; screen ends:\n${tail()}`),
        ),
      WAIT_MS,
    );
  });
  return Promise.race([p, limit]).finally(() => clearTimeout(timer));
}

/**
 * Starts `deno run cli.ts <args>` on a terminal.
 *
 * @param args The CLI arguments.
 * @param options Working folder, the whole environment, terminal size.
 * @returns The child.
 */
export function spawnPty(
  args: string[],
  options: {
    cwd: string;
    env: Record<string, string>;
    columns?: number;
    rows?: number;
  },
): PtyChild {
  const child = new Deno.Command("python3", {
    args: [
      DRIVER,
      String(options.columns ?? 120),
      String(options.rows ?? 40),
      "--",
      Deno.execPath(),
      ...cliRunArgs(args),
    ],
    cwd: options.cwd,
    clearEnv: true,
    env: {
      PATH: Deno.env.get("PATH") ?? "/usr/bin:/bin",
      TERM: "xterm",
      ...options.env,
    },
    stdin: "piped",
    stdout: "piped",
    stderr: "piped",
  }).spawn();
  const writer = child.stdin.getWriter();
  const encoder = new TextEncoder();
  let raw = "";
  let changed: () => void = () => {};
  let wake = new Promise<void>((r) => changed = r);
  const pump = (async () => {
    const decoder = new TextDecoder();
    for await (const chunk of child.stdout) {
      raw += decoder.decode(chunk, { stream: true });
      changed();
      wake = new Promise<void>((r) => changed = r);
    }
  })();
  const stderr = new Response(child.stderr).text();
  const exited = child.status.then(async (s) => {
    await pump;
    changed();
    return s.code;
  });
  let done = false;
  void exited.then(() => done = true);
  const tail = (): string => screenText(raw).slice(-1500);
  return {
    async type(keys: string): Promise<void> {
      await writer.write(encoder.encode(keys));
    },
    raw: () => raw,
    text: () => screenText(raw),
    waitFor(pattern: string | RegExp, from = 0): Promise<number> {
      const find = (): number | undefined => {
        const text = screenText(raw).slice(from);
        if (typeof pattern === "string") {
          const i = text.indexOf(pattern);
          return i === -1 ? undefined : from + i + pattern.length;
        }
        const m = pattern.exec(text);
        return m === null ? undefined : from + m.index + m[0].length;
      };
      return bounded(
        String(pattern),
        (async () => {
          for (;;) {
            const at = find();
            if (at !== undefined) return at;
            if (done) throw new Error(`Ended before ${pattern}:\n${tail()}`);
            await wake;
          }
        })(),
        tail,
      );
    },
    exited,
    waitExit: () => bounded("the program to end", exited, tail),
    async [Symbol.asyncDispose](): Promise<void> {
      try {
        child.kill("SIGKILL");
      } catch {
        // Already ended.
      }
      await writer.close().catch(() => {});
      await exited;
      await stderr;
    },
  };
}
