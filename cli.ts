/**
 * The `relavium` command line. Parses nothing itself: it hands the
 * arguments and the real terminal to the CLI and exits with the code it
 * returns. Every command module is imported lazily, so `--version` and
 * `--help` load no zod, YAML or SQLite.
 *
 * Run it with `deno run -A jsr:@relavium/session/cli chat`, or call
 * {@linkcode main} from a script.
 * @module
 */
import { createDenoIo } from "./cli/io/io.ts";
import { main as runCli } from "./cli/main.ts";

export { VERSION } from "./cli/version.ts";

/**
 * Runs the CLI on the real terminal (standard streams, `Deno.env`, the
 * working directory, signals).
 *
 * @param argv The arguments after the program name.
 * @returns The exit code: 0 success, 1 failure, 2 invalid invocation,
 * 4 chat ended, 130/143 interrupted.
 */
export function main(argv: readonly string[]): Promise<number> {
  return runCli(argv, createDenoIo());
}

if (import.meta.main) {
  Deno.exit(await main(Deno.args));
}
