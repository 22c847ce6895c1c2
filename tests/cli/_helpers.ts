/** Shared helpers of the CLI tests: temp dirs and in-process runs of `main`. */
import { createBufferedIo } from "../../cli/io.ts";
import { main } from "../../cli/main.ts";

/** A temp dir removed on `await using` exit. */
export interface TempDir extends AsyncDisposable {
  path: string;
}

/** Creates a temp dir (removed recursively when disposed). */
export async function tempDir(): Promise<TempDir> {
  const path = await Deno.realPath(
    await Deno.makeTempDir({ prefix: "relavium-cli-" }),
  );
  return {
    path,
    async [Symbol.asyncDispose](): Promise<void> {
      await Deno.remove(path, { recursive: true });
    },
  };
}

/** Options of {@linkcode runCli}. */
export interface RunOptions {
  env?: Record<string, string>;
  stdin?: string | ReadableStream<Uint8Array>;
  cwd?: string;
  tty?: boolean;
}

/** What a run produced. */
export interface RunResult {
  code: number;
  stdout: string;
  stderr: string;
}

/** Runs `main(argv, io)` with a buffered io. */
export async function runCli(
  argv: string[],
  options: RunOptions = {},
): Promise<RunResult> {
  const b = createBufferedIo({
    env: options.env ?? {},
    cwd: options.cwd ?? "/",
    stdin: options.stdin ?? "",
    stdinIsTerminal: options.tty ?? false,
    stdoutIsTerminal: options.tty ?? false,
  });
  const code = await main(argv, b.io);
  return { code, stdout: b.stdoutText(), stderr: b.stderrText() };
}

/** Writes a file, creating its parent folders. */
export async function write(path: string, text: string): Promise<void> {
  await Deno.mkdir(path.slice(0, path.lastIndexOf("/")), { recursive: true });
  await Deno.writeTextFile(path, text);
}

/** A v1.0 cassette of text-only turns for `provider`. */
export function textCassette(provider: string, replies: string[]): string {
  return JSON.stringify({
    schema_version: "1.0",
    provider,
    calls: replies.map((text, i) => [
      { type: "text_delta", text },
      {
        type: "stop",
        stopReason: "stop",
        usage: { inputTokens: 10 + i, outputTokens: 2 },
      },
    ]),
  });
}
