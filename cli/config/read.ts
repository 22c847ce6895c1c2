/**
 * Reads one config file. A missing file is an absent layer; only an
 * existing file loads the TOML parser and the zod config schemas
 * (`load.ts`), so a start-up without config files stays light.
 *
 * @module
 */
import { err, ok, type Result } from "../../schema/result.ts";
import { type CliFault, fault } from "../fault.ts";
import type { FileKind, LoadedFile } from "./load.ts";
import { sha256Hex } from "./trust_store.ts";

/**
 * Reads a config file; a missing file is `undefined` (an absent layer).
 *
 * @param kind The file kind.
 * @param path The absolute path.
 * @returns The loaded file, `undefined` when it does not exist, or a fault
 * (`invalid_config`, or `internal` when it cannot be read).
 */
export async function loadConfigFile(
  kind: FileKind,
  path: string,
): Promise<Result<LoadedFile | undefined, CliFault>> {
  let bytes: Uint8Array;
  try {
    bytes = await Deno.readFile(path);
  } catch (e) {
    if (e instanceof Deno.errors.NotFound) return ok(undefined);
    if (e instanceof Deno.errors.IsADirectory) {
      return err(
        fault("invalid_config", `Invalid config: ${path} is a directory`),
      );
    }
    const why = e instanceof Error ? e.name : "unknown error";
    return err(fault("internal", `Cannot read config file ${path}: ${why}`));
  }
  const { parseConfigText } = await import("./load.ts");
  const parsed = parseConfigText(kind, path, new TextDecoder().decode(bytes));
  if (!parsed.ok) return parsed;
  return ok({ ...parsed.value, sha256: await sha256Hex(bytes) });
}
