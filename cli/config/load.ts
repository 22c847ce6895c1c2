/**
 * Validates the text of one config file: strict TOML (`smol-toml`), then
 * the strict schema of its kind. Every error names the file, the line and
 * the key path. Loaded by `read.ts` only when a config file exists.
 *
 * @module
 */
import type { z } from "zod";
import { err, ok, type Result } from "../../schema/result.ts";
import { type CliFault, fault } from "../fault.ts";
import { findKeyLine } from "./lines.ts";
import { decodeToml } from "./toml.ts";
import {
  GLOBAL_ONLY_KEYS,
  type GlobalFile,
  globalFileSchema,
  LATER_KEYS,
  PROJECT_ONLY_KEYS,
  type ProjectFile,
  projectFileSchema,
} from "./schema.ts";

/**
 * Which schema a file follows.
 */
export type FileKind = "global" | "workspace" | "project";

/**
 * A loaded file: its kind, path and validated content.
 */
export type LoadedFile =
  | {
    kind: "global";
    path: string;
    text: string;
    data: GlobalFile;
    /** SHA-256 of the file's exact bytes (hex), when read from disk. */
    sha256?: string;
  }
  | {
    kind: "workspace" | "project";
    path: string;
    text: string;
    data: ProjectFile;
    /** SHA-256 of the file's exact bytes (hex), when read from disk. */
    sha256?: string;
  };

function formatPath(path: ReadonlyArray<string | number>): string {
  let out = "";
  for (const seg of path) {
    if (typeof seg === "number") out += `[${seg}]`;
    else out += out === "" ? seg : `.${seg}`;
  }
  return out;
}

function where(file: string, text: string, path: Array<string | number>) {
  const line = findKeyLine(text, path);
  return line === undefined ? file : `${file}:${line}`;
}

function misplacedMessage(kind: FileKind, key: string): string | undefined {
  if (LATER_KEYS.includes(key)) return "is not supported in this version";
  if (kind !== "global" && GLOBAL_ONLY_KEYS.includes(key)) {
    return "belongs in the global config.toml, not in a project file";
  }
  if (kind === "global" && PROJECT_ONLY_KEYS.includes(key)) {
    return "belongs in .relavium/project.toml or workspace.toml, not in the global config";
  }
  return undefined;
}

function describeIssues(
  kind: FileKind,
  file: string,
  text: string,
  error: z.core.$ZodError,
): string {
  const lines: string[] = [];
  for (const issue of error.issues) {
    const base = issue.path.filter((p): p is string | number =>
      typeof p !== "symbol"
    );
    if (issue.code === "unrecognized_keys") {
      for (const key of issue.keys) {
        const path = [...base, key];
        const misplaced = base.length === 0
          ? misplacedMessage(kind, key)
          : undefined;
        lines.push(
          `${where(file, text, path)}: ${formatPath(path)}: ${
            misplaced ?? "unknown key"
          }`,
        );
      }
      continue;
    }
    const name = base.length === 0 ? "(root)" : formatPath(base);
    lines.push(`${where(file, text, base)}: ${name}: ${issue.message}`);
  }
  return `Invalid config: ${lines.join("\n")}`;
}

/**
 * Parses and validates config text.
 *
 * @param kind The file kind (selects the schema).
 * @param file The path, used in messages.
 * @param text The TOML text.
 * @returns The loaded file, or an `invalid_config` fault naming the file,
 * line and key path.
 */
export function parseConfigText(
  kind: FileKind,
  file: string,
  text: string,
): Result<LoadedFile, CliFault> {
  const decoded = decodeToml(file, text);
  if (!decoded.ok) return decoded;
  return validateConfig(kind, file, text, decoded.value);
}

/**
 * Validates a decoded config document with the strict schemas.
 *
 * @param kind The file kind (selects the schema).
 * @param file The path, used in messages.
 * @param text The TOML text (to find the line of a key).
 * @param value The decoded document.
 * @returns The loaded file, or an `invalid_config` fault naming the file,
 * line and key path.
 */
export function validateConfig(
  kind: FileKind,
  file: string,
  text: string,
  value: unknown,
): Result<LoadedFile, CliFault> {
  if (kind === "global") {
    const r = globalFileSchema.safeParse(value, { jitless: true });
    return r.success
      ? ok({ kind, path: file, text, data: r.data })
      : err(fault("invalid_config", describeIssues(kind, file, text, r.error)));
  }
  const r = projectFileSchema.safeParse(value, { jitless: true });
  return r.success
    ? ok({ kind, path: file, text, data: r.data })
    : err(fault("invalid_config", describeIssues(kind, file, text, r.error)));
}
