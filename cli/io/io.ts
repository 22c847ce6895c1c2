/**
 * The world as the CLI sees it: standard streams, environment, working
 * directory, terminal flags and signals. Tests build a {@linkcode CliIo}
 * in memory ({@linkcode createBufferedIo}); {@linkcode createDenoIo} is the
 * only place that touches `Deno.env`, `Deno.stdin`, `Deno.stdout`,
 * `Deno.stderr` and signal listeners.
 *
 * @module
 */
import { processInvocation } from "../invocation.ts";

/**
 * A synchronous text sink (stdout or stderr). Writes are complete when the
 * call returns, so stdout and stderr interleave in call order.
 */
export interface TextSink {
  /** Writes the whole text. */
  write(text: string): void;
}

/** Calls `tick` every `ms` milliseconds until the returned function is called. */
export type Ticker = (ms: number, tick: () => void) => () => void;

/**
 * Signals the CLI reacts to.
 */
export type CliSignal = "SIGINT" | "SIGTERM";

/**
 * Everything `main` may use from its surroundings.
 */
export interface CliIo {
  /** Standard input as bytes (read lazily; never read by read commands). */
  readonly stdin: ReadableStream<Uint8Array>;
  /**
   * Reads all of stdin as bytes without a web stream (the real io: a
   * one-shot's prompt loads no stream machinery); absent ⇒ `stdin` is read.
   */
  readAllStdin?(): Promise<Uint8Array>;
  /** Standard output. */
  readonly stdout: TextSink;
  /** Standard error. */
  readonly stderr: TextSink;
  /** Reads one environment variable; `undefined` when unset. */
  env(name: string): string | undefined;
  /** The process working directory (absolute). */
  readonly cwd: string;
  /** Whether stdin is a terminal. */
  readonly stdinIsTerminal: boolean;
  /** Whether stdout is a terminal. */
  readonly stdoutIsTerminal: boolean;
  /** Whether stderr is a terminal (absent ⇒ not one). */
  readonly stderrIsTerminal?: boolean;
  /**
   * How a person runs this CLI again, for hints and usage errors that
   * name a command: what they ran before the CLI's arguments (e.g.
   * `deno run -A cli.ts`; `cli/invocation.ts`), absent ⇒ `relavium`.
   * Called only when such a line is printed.
   */
  readonly invocation?: () => string;
  /** The clock, in epoch milliseconds (absent ⇒ `Date.now`). */
  readonly now?: () => number;
  /** Repeats a redraw (absent ⇒ `setInterval`, never keeping the process alive). */
  readonly every?: Ticker;
  /**
   * Registers a signal handler.
   *
   * @returns A function that removes the handler.
   */
  onSignal(signal: CliSignal, handler: () => void): () => void;
  /**
   * The HTTP transport of provider calls (absent ⇒ the global `fetch`).
   * Only sessions without `--fixture` use it.
   */
  readonly fetch?: (input: string, init: RequestInit) => Promise<Response>;
  /**
   * Every A and AAAA answer for a host name, for the check of custom
   * provider endpoints (absent ⇒ not checked). Only sessions without
   * `--fixture` use it.
   */
  readonly resolveDns?: (name: string) => Promise<string[]>;
  /**
   * Random bytes, e.g. for the nonces of `@`/`!` framing (absent ⇒
   * `crypto.getRandomValues`).
   */
  readonly randomBytes?: (length: number) => Uint8Array;
  /**
   * Waits `ms` milliseconds, rejecting with `signal.reason` when the signal
   * aborts (absent ⇒ a real timer). The provider chain's backoff uses it.
   */
  readonly sleep?: (ms: number, signal: AbortSignal) => Promise<void>;
  /**
   * The terminal's input mode and width, when stdin is a terminal
   * (absent ⇒ the chat reads plain lines). The chat's line editor uses it.
   */
  readonly terminal?: TerminalControl;
}

/**
 * A terminal's input mode: `raw` (no echo, no signals, every byte as
 * typed), `cbreak` (no echo, Ctrl-C is SIGINT), `normal` (the line
 * discipline's own editing and echo).
 */
export type TerminalMode = "raw" | "cbreak" | "normal";

/** Control of the terminal stdin reads: its input mode and width. */
export interface TerminalControl {
  /** Switches stdin's input mode. */
  setMode(mode: TerminalMode): void;
  /** The terminal's width in columns. */
  columns(): number;
  /**
   * Calls `handler` when the terminal is resized (absent ⇒ never).
   *
   * @returns A function that removes the handler.
   */
  onResize?(handler: () => void): () => void;
}

/**
 * Options of {@linkcode createBufferedIo}.
 */
export interface BufferedIoOptions {
  /** Whole stdin text, or a stream (default: empty). */
  stdin?: string | ReadableStream<Uint8Array>;
  /** Environment variables (default: none). */
  env?: Readonly<Record<string, string>>;
  /** Working directory (default `/`). */
  cwd?: string;
  /** Default `false`. */
  stdinIsTerminal?: boolean;
  /** Default `false`. */
  stdoutIsTerminal?: boolean;
  /** Default `false`. */
  stderrIsTerminal?: boolean;
  /** The clock (default `Date.now`). */
  now?: () => number;
  /** The redraw timer (default: one that never ticks). */
  every?: Ticker;
  /**
   * The provider transport (default: one that refuses every request, so a
   * buffered io never reaches the network by accident).
   */
  fetch?: (input: string, init: RequestInit) => Promise<Response>;
  /** DNS answers for custom provider hosts (default: none wired). */
  resolveDns?: (name: string) => Promise<string[]>;
  /** Random bytes (default: `crypto.getRandomValues`). */
  randomBytes?: (length: number) => Uint8Array;
  /**
   * The backoff sleep (default: one that resolves at once, rejecting with
   * `signal.reason` when the signal is already aborted, so tests never
   * wait for real).
   */
  sleep?: (ms: number, signal: AbortSignal) => Promise<void>;
}

/**
 * An in-memory {@linkcode CliIo} plus what it captured.
 */
export interface BufferedIo {
  /** The io to pass to `main`. */
  io: CliIo;
  /** Everything written to stdout so far. */
  stdoutText(): string;
  /** Everything written to stderr so far. */
  stderrText(): string;
  /** Delivers a signal to the registered handlers; returns how many ran. */
  raise(signal: CliSignal): number;
}

/**
 * Builds an in-memory io for tests and examples: captured output, a fixed
 * environment, no real signals.
 *
 * @param options Stdin, environment, cwd and terminal flags.
 * @returns The io and accessors for what it captured.
 */
export function createBufferedIo(options: BufferedIoOptions = {}): BufferedIo {
  const out: string[] = [];
  const errs: string[] = [];
  const handlers = new Map<CliSignal, Set<() => void>>();
  const env = { ...(options.env ?? {}) };
  const stdin = typeof options.stdin === "object"
    ? options.stdin
    : textStream(options.stdin ?? "");
  const io: CliIo = {
    stdin,
    stdout: { write: (t) => void out.push(t) },
    stderr: { write: (t) => void errs.push(t) },
    env: (name) => Object.hasOwn(env, name) ? env[name] : undefined,
    cwd: options.cwd ?? "/",
    stdinIsTerminal: options.stdinIsTerminal ?? false,
    stdoutIsTerminal: options.stdoutIsTerminal ?? false,
    stderrIsTerminal: options.stderrIsTerminal ?? false,
    ...(options.now === undefined ? {} : { now: options.now }),
    every: options.every ?? ((): () => void => () => {}),
    onSignal(signal, handler) {
      const set = handlers.get(signal) ?? new Set();
      handlers.set(signal, set);
      set.add(handler);
      return () => void set.delete(handler);
    },
    fetch: options.fetch ?? offlineFetch,
    ...(options.resolveDns === undefined
      ? {}
      : { resolveDns: options.resolveDns }),
    ...(options.randomBytes === undefined
      ? {}
      : { randomBytes: options.randomBytes }),
    sleep: options.sleep ?? instantSleep,
  };
  return {
    io,
    stdoutText: () => out.join(""),
    stderrText: () => errs.join(""),
    raise(signal) {
      const set = [...(handlers.get(signal) ?? [])];
      for (const h of set) h();
      return set.length;
    },
  };
}

function instantSleep(_ms: number, signal: AbortSignal): Promise<void> {
  return signal.aborted ? Promise.reject(signal.reason) : Promise.resolve();
}

function offlineFetch(): Promise<Response> {
  return Promise.reject(
    new TypeError("Network access is disabled in a buffered io"),
  );
}

function textStream(text: string): ReadableStream<Uint8Array> {
  const bytes = new TextEncoder().encode(text);
  return new ReadableStream<Uint8Array>({
    start(controller) {
      if (bytes.length > 0) controller.enqueue(bytes);
      controller.close();
    },
  });
}

/**
 * A sink over a file. When the reader has gone (`BrokenPipe`: `… | head`
 * closed the pipe), `onClosed` decides: stdout's ends the process quietly
 * with exit 0, as the default `SIGPIPE` would end a Unix tool (a turn in
 * flight is cut as by a crash: its provider call stays journaled as
 * pending); stderr's drops what follows, so a closed stderr never turns
 * into an error about itself.
 */
function syncSink(
  file: { writeSync(p: Uint8Array): number },
  onClosed: () => void,
): TextSink {
  const encoder = new TextEncoder();
  let closed = false;
  return {
    write(text) {
      if (closed) return;
      let bytes = encoder.encode(text);
      try {
        while (bytes.length > 0) {
          const n = file.writeSync(bytes);
          bytes = bytes.subarray(n);
        }
      } catch (e) {
        if (!(e instanceof Deno.errors.BrokenPipe)) throw e;
        closed = true;
        onClosed();
      }
    },
  };
}

function quietExit(): void {
  Deno.exit(0);
}

function readEnv(name: string): string | undefined {
  try {
    return Deno.env.get(name);
  } catch (e) {
    // Without `--allow-env` for this name the variable counts as unset.
    if (e instanceof Deno.errors.NotCapable) return undefined;
    throw e;
  }
}

/** All of `Deno.stdin`, read in 64 KiB pieces until its end. */
async function readAllDenoStdin(): Promise<Uint8Array> {
  const pieces: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const piece = new Uint8Array(64 * 1024);
    const n = await Deno.stdin.read(piece);
    if (n === null) break;
    pieces.push(piece.subarray(0, n));
    size += n;
  }
  const all = new Uint8Array(size);
  let at = 0;
  for (const p of pieces) {
    all.set(p, at);
    at += p.length;
  }
  return all;
}

/**
 * The real io of a `deno run`/`deno compile` process.
 *
 * @returns An io over `Deno.stdin`/`stdout`/`stderr`, `Deno.env`,
 * `Deno.cwd()` and `Deno.addSignalListener`.
 */
export function createDenoIo(): CliIo {
  return {
    get stdin(): ReadableStream<Uint8Array> {
      return Deno.stdin.readable;
    },
    readAllStdin: readAllDenoStdin,
    stdout: syncSink(Deno.stdout, quietExit),
    stderr: syncSink(Deno.stderr, () => {}),
    env: readEnv,
    cwd: Deno.cwd(),
    stdinIsTerminal: Deno.stdin.isTerminal(),
    stdoutIsTerminal: Deno.stdout.isTerminal(),
    stderrIsTerminal: Deno.stderr.isTerminal(),
    invocation: processInvocation,
    onSignal(signal, handler) {
      Deno.addSignalListener(signal, handler);
      return () => Deno.removeSignalListener(signal, handler);
    },
    fetch: (input, init) => fetch(input, init),
    resolveDns: resolveHost,
    ...(Deno.stdin.isTerminal() ? { terminal: denoTerminal } : {}),
  };
}

const denoTerminal: TerminalControl = {
  setMode(mode) {
    try {
      if (mode === "normal") Deno.stdin.setRaw(false);
      else Deno.stdin.setRaw(true, { cbreak: mode === "cbreak" });
    } catch {
      // A terminal that went away keeps whatever mode it had.
    }
  },
  columns() {
    try {
      return Deno.consoleSize().columns;
    } catch {
      return 80;
    }
  },
  onResize(handler) {
    try {
      Deno.addSignalListener("SIGWINCH", handler);
    } catch {
      // No SIGWINCH here (Windows): the prompt is redrawn on the next key.
      return () => {};
    }
    return () => Deno.removeSignalListener("SIGWINCH", handler);
  },
};

/** A and AAAA answers; a name without records has none. */
async function resolveHost(name: string): Promise<string[]> {
  const settled = await Promise.allSettled([
    Deno.resolveDns(name, "A"),
    Deno.resolveDns(name, "AAAA"),
  ]);
  const out: string[] = [];
  for (const s of settled) {
    if (s.status === "fulfilled") out.push(...s.value);
    else if (!(s.reason instanceof Deno.errors.NotFound)) throw s.reason;
  }
  return out;
}
