/**
 * The MCP stdio transport on `Deno.Command`: one JSON-RPC message per
 * line over the child's stdin and stdout. The child gets exactly the
 * environment it is given (`clearEnv`), runs in its own process group on
 * POSIX, and the whole group is killed on `close()` (session end, abort,
 * a broken line). A line longer than the cap closes the connection; the
 * last bytes of stderr are kept for diagnostics.
 *
 * @module
 */
import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js";
import {
  type JSONRPCMessage,
  JSONRPCMessageSchema,
} from "@modelcontextprotocol/sdk/types.js";
import { killGroup } from "../deno/_spawn.ts";

/** The longest line (bytes, as UTF-16 units) a server may send. */
export const MAX_LINE = 8 * 1024 * 1024;
/** How much of stderr is kept. */
export const STDERR_TAIL = 4096;

/** What to spawn. */
export interface StdioLaunch {
  /** The program. */
  command: string;
  /** Its arguments. */
  args: readonly string[];
  /** The complete environment of the child. */
  env: Readonly<Record<string, string>>;
  /** The working directory. */
  cwd: string;
  /** Whether the host has POSIX process groups. */
  posix: boolean;
  /** Line cap (default {@linkcode MAX_LINE}). */
  maxLine?: number;
}

/** A transport the SDK's `Client` runs over; see the module doc. */
export class DenoStdioTransport implements Transport {
  /** Set by the SDK. */
  onmessage?: (message: JSONRPCMessage) => void;
  /** Set by the SDK. */
  onclose?: () => void;
  /** Set by the SDK. */
  onerror?: (error: Error) => void;
  readonly #launch: StdioLaunch;
  #child: Deno.ChildProcess | undefined;
  #writer: WritableStreamDefaultWriter<Uint8Array> | undefined;
  #tail = "";
  #closed = false;
  #closing: Promise<void> | undefined;

  /**
   * @param launch What to spawn.
   */
  constructor(launch: StdioLaunch) {
    this.#launch = launch;
  }

  /** The last bytes the server wrote to stderr. */
  get stderrTail(): string {
    return this.#tail;
  }

  /** The child's pid, once started. */
  get pid(): number | undefined {
    return this.#child?.pid;
  }

  /** Spawns the server and starts reading. */
  start(): Promise<void> {
    const l = this.#launch;
    const child = new Deno.Command(l.command, {
      args: [...l.args],
      env: { ...l.env },
      clearEnv: true,
      cwd: l.cwd,
      stdin: "piped",
      stdout: "piped",
      stderr: "piped",
      detached: l.posix,
    }).spawn();
    this.#child = child;
    this.#writer = child.stdin.getWriter();
    void this.#readLines(child.stdout);
    void this.#readTail(child.stderr);
    void child.status.then(() => this.close());
    return Promise.resolve();
  }

  /** Writes one message as one line. */
  async send(message: JSONRPCMessage): Promise<void> {
    const writer = this.#writer;
    if (writer === undefined || this.#closed) {
      throw new Error("MCP server connection is closed");
    }
    await writer.write(
      new TextEncoder().encode(`${JSON.stringify(message)}\n`),
    );
  }

  /** Kills the server's process group; idempotent. */
  close(): Promise<void> {
    this.#closing ??= this.#close();
    return this.#closing;
  }

  async #close(): Promise<void> {
    this.#closed = true;
    const child = this.#child;
    if (child !== undefined) {
      await this.#writer?.close().catch(() => undefined);
      if (this.#launch.posix) await killGroup(child.pid, this.#launch.env);
      try {
        child.kill("SIGKILL");
      } catch {
        // already exited
      }
      await child.status.catch(() => undefined);
    }
    this.onclose?.();
  }

  async #readLines(stream: ReadableStream<Uint8Array>): Promise<void> {
    const max = this.#launch.maxLine ?? MAX_LINE;
    let buffer = "";
    try {
      for await (
        const chunk of stream.pipeThrough(new TextDecoderStream())
      ) {
        buffer += chunk;
        let nl = buffer.indexOf("\n");
        while (nl >= 0) {
          const line = buffer.slice(0, nl).replace(/\r$/, "");
          buffer = buffer.slice(nl + 1);
          if (line.trim() !== "") this.#deliver(line);
          nl = buffer.indexOf("\n");
        }
        if (buffer.length > max) {
          this.onerror?.(
            new Error(`MCP server sent a line longer than ${max} characters`),
          );
          void this.close();
          return;
        }
      }
    } catch (e) {
      if (!this.#closed) this.onerror?.(asError(e));
    }
  }

  #deliver(line: string): void {
    let message: JSONRPCMessage;
    try {
      message = JSONRPCMessageSchema.parse(JSON.parse(line));
    } catch (e) {
      this.onerror?.(
        new Error(`MCP server sent a line that is not JSON-RPC`, { cause: e }),
      );
      return;
    }
    this.onmessage?.(message);
  }

  async #readTail(stream: ReadableStream<Uint8Array>): Promise<void> {
    try {
      for await (
        const chunk of stream.pipeThrough(new TextDecoderStream())
      ) {
        this.#tail = (this.#tail + chunk).slice(-STDERR_TAIL);
      }
    } catch {
      // the pipe broke as the child died: keep what was read
    }
  }
}

function asError(e: unknown): Error {
  return e instanceof Error ? e : new Error(String(e));
}
