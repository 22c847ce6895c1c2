/**
 * Reads one config file: a regular file of at most 1 MiB (a symlink to a
 * device or a FIFO is refused before it is opened). A missing file is an
 * absent layer; only an
 * existing file loads the TOML parser and the zod config schemas
 * (`load.ts`), so a start-up without config files stays light.
 *
 * @module
 */
import { err, ok, type Result } from "../../schema/result.ts";
import { type CliFault, fault } from "../fault.ts";
import type { FileKind, LoadedFile } from "./load.ts";
import {
  describeFileProblem,
  readRegularFile,
} from "../../host/regular_file.ts";

/**
 * Reads a config file; a missing file is `undefined` (an absent layer).
 *
 * @param kind The file kind.
 * @param path The absolute path.
 * @returns The loaded file, `undefined` when it does not exist, or a fault:
 * `invalid_config` (a directory, a device, FIFO or socket, over 1 MiB, or
 * invalid content), `internal` when it cannot be read.
 */
export async function loadConfigFile(
  kind: FileKind,
  path: string,
): Promise<Result<LoadedFile | undefined, CliFault>> {
  const read = await readRegularFile(path);
  if (!read.ok) {
    if (read.error.kind === "missing") return ok(undefined);
    return err(
      read.error.kind === "unreadable"
        ? fault(
          "internal",
          `Cannot read config file ${path}: ${read.error.why}`,
        )
        : fault(
          "invalid_config",
          `Invalid config: ${describeFileProblem(path, read.error)}`,
        ),
    );
  }
  const bytes = read.value;
  const [{ parseConfigText }, { sha256Hex }] = await Promise.all([
    import("./load.ts"),
    import("./trust_store.ts"),
  ]);
  const parsed = parseConfigText(kind, path, new TextDecoder().decode(bytes));
  if (!parsed.ok) return parsed;
  return ok({ ...parsed.value, sha256: await sha256Hex(bytes) });
}
