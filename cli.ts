/**
 * The `relavium` command line. Parses nothing itself: it hands `Deno.args`
 * and the real io to {@linkcode main} and exits with the code it returns.
 * Every command module is imported lazily, so `--version` and `--help`
 * load no zod, YAML or SQLite.
 * @module
 */
import { createDenoIo } from "./cli/io/io.ts";
import { main } from "./cli/main.ts";

export { VERSION } from "./cli/version.ts";
export { main } from "./cli/main.ts";
export {
  type BufferedIo,
  type BufferedIoOptions,
  type CliIo,
  type CliSignal,
  createBufferedIo,
  createDenoIo,
  type TextSink,
} from "./cli/io/io.ts";

if (import.meta.main) {
  Deno.exit(await main(Deno.args, createDenoIo()));
}
