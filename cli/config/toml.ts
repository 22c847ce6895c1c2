/**
 * Decodes config text as TOML 1.0 (`npm:smol-toml`): no unsafe keys, a
 * bounded depth, and a syntax error named by file, line and column.
 *
 * @module
 */
import { parse, TomlError } from "smol-toml";
import { err, ok, type Result } from "../../schema/result.ts";
import { type CliFault, fault } from "../fault.ts";

/**
 * Decodes TOML text.
 *
 * @param file The path, used in messages.
 * @param text The TOML text.
 * @returns The decoded document, or an `invalid_config` fault.
 */
export function decodeToml(
  file: string,
  text: string,
): Result<unknown, CliFault> {
  try {
    return ok(parse(text, { unsafeKeyBehaviour: "throw", maxDepth: 32 }));
  } catch (e) {
    if (e instanceof TomlError) {
      const first = e.message.split("\n")[0]?.replace(
        /^Invalid TOML document: /,
        "",
      );
      return err(
        fault(
          "invalid_config",
          `Invalid config: ${file}:${e.line}:${e.column}: invalid TOML: ${first}`,
        ),
      );
    }
    throw e;
  }
}
