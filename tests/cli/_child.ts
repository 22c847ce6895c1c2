/**
 * The CLI as a real child process, for tests that need a second writer or
 * a process killed mid-call: argv through `cli.ts`, stdin kept open until
 * the test closes it, stdout read line by line.
 */
import { fileURLToPath } from "node:url";

/** The repository root (a path ending in `/`). */
export const ROOT = fileURLToPath(new URL("../../", import.meta.url));

/** What a finished child wrote and how it ended. */
export interface ChildOutput {
  code: number;
  stdout: string;
  stderr: string;
}

/** Spawns `deno <args>` with every stream piped and only `env` for its environment. */
function spawnDeno(
  args: readonly string[],
  options: { cwd: string; env: Record<string, string> },
): Deno.ChildProcess {
  return new Deno.Command(Deno.execPath(), {
    args: [...args],
    cwd: options.cwd,
    clearEnv: true,
    env: options.env,
    stdin: "piped",
    stdout: "piped",
    stderr: "piped",
  }).spawn();
}

/**
 * Runs `deno <args>` to its end: `stdin` written then closed, nothing of
 * the test's environment passed on but `env`.
 *
 * @param args The arguments after `deno`.
 * @param options The working folder, the whole environment and the input.
 * @returns Its exit code and its output, decoded.
 */
export async function runDeno(
  args: readonly string[],
  options: { cwd: string; env: Record<string, string>; stdin?: string },
): Promise<ChildOutput> {
  const child = spawnDeno(args, options);
  const writer = child.stdin.getWriter();
  await writer.write(new TextEncoder().encode(options.stdin ?? ""));
  await writer.close();
  const out = await child.output();
  const decoder = new TextDecoder();
  return {
    code: out.code,
    stdout: decoder.decode(out.stdout),
    stderr: decoder.decode(out.stderr),
  };
}

/** A running `cli.ts`. */
export interface CliChild extends AsyncDisposable {
  /** Its process id. */
  readonly pid: number;
  /** Writes one line to its stdin. */
  send(line: string): Promise<void>;
  /** Ends its stdin (end of input). */
  endInput(): Promise<void>;
  /**
   * Reads stdout lines until one satisfies `done` (or stdout ends);
   * every line read is kept in `lines`.
   */
  readUntil(done: (line: string) => boolean): Promise<string | undefined>;
  /** Every stdout line read so far. */
  readonly lines: string[];
  /** SIGKILLs it. */
  kill(): void;
  /** Resolves when it exits (touches neither stdin nor stdout). */
  readonly exited: Promise<{ code: number; signal: string | null }>;
  /** Ends its stdin, reads the rest of stdout, and waits for it to end. */
  finished(): Promise<{ code: number; signal: string | null; stderr: string }>;
}

/**
 * The `deno run` arguments of `cli.ts <args>` with the permissions the
 * CLI needs here (net to 127.0.0.1 only; run and sys=hostname name it on
 * leases).
 *
 * @param args The CLI arguments.
 * @returns The arguments after `deno`.
 */
export function cliRunArgs(args: readonly string[]): string[] {
  return [
    "run",
    "--no-prompt",
    "--quiet",
    "--allow-read",
    "--allow-write",
    "--allow-env",
    "--allow-run",
    "--allow-sys=hostname",
    "--allow-net=127.0.0.1",
    `${ROOT}cli.ts`,
    ...args,
  ];
}

/**
 * Spawns `deno run cli.ts <args>` with the permissions the CLI needs
 * here (net to 127.0.0.1 only; run and sys=hostname name it on leases).
 *
 * @param args The CLI arguments.
 * @param options The working folder and the whole environment.
 * @returns The child.
 */
export function spawnCli(
  args: string[],
  options: { cwd: string; env: Record<string, string> },
): CliChild {
  const child = spawnDeno(cliRunArgs(args), options);
  const writer = child.stdin.getWriter();
  const reader = child.stdout.pipeThrough(new TextDecoderStream())
    .getReader();
  const stderr = new Response(child.stderr).text();
  const lines: string[] = [];
  let buffered = "";
  let inputOpen = true;
  let outputDone = false;
  const encoder = new TextEncoder();
  const endInput = async (): Promise<void> => {
    if (!inputOpen) return;
    inputOpen = false;
    await writer.close().catch(() => {});
  };
  return {
    pid: child.pid,
    lines,
    exited: child.status.then((s) => ({ code: s.code, signal: s.signal })),
    async send(line: string): Promise<void> {
      await writer.write(encoder.encode(`${line}\n`));
    },
    endInput,
    async readUntil(done) {
      for (let reads = 0; reads < 100_000 && !outputDone; reads++) {
        const found = lines.find(done);
        if (found !== undefined) return found;
        const { value, done: ended } = await reader.read();
        if (ended) {
          outputDone = true;
          break;
        }
        buffered += value;
        const parts = buffered.split("\n");
        buffered = parts.pop() ?? "";
        lines.push(...parts);
      }
      return lines.find(done);
    },
    kill(): void {
      child.kill("SIGKILL");
    },
    async finished() {
      await endInput();
      // Drain what it still writes (an unread pipe would break it).
      await this.readUntil(() => false);
      const status = await child.status;
      return { code: status.code, signal: status.signal, stderr: await stderr };
    },
    async [Symbol.asyncDispose](): Promise<void> {
      try {
        child.kill("SIGKILL");
      } catch {
        // Already ended.
      }
      await this.finished();
    },
  };
}
