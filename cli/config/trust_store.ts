/**
 * The user's trust in project files: `<relavium home>/trusted.json` maps
 * the absolute path of a `workspace.toml` or `project.toml` to the SHA-256
 * of its exact bytes. A file is trusted only while its bytes hash to the
 * recorded value: any edit needs trust again.
 *
 * @module
 */
import { join } from "../../schema/paths.ts";
import { err, ok, type Result } from "../../schema/result.ts";
import { type CliFault, fault } from "../fault.ts";
import {
  describeFileProblem,
  readRegularFile,
} from "../../host/regular_file.ts";

/** Trusted files: absolute path → lower-case hex SHA-256. */
export type TrustedFiles = Record<string, string>;

/**
 * The trust file's path.
 *
 * @param relaviumDir The Relavium home.
 * @returns `<relaviumDir>/trusted.json`.
 */
export function trustFilePath(relaviumDir: string): string {
  return join(relaviumDir, "trusted.json");
}

/**
 * The SHA-256 of some bytes, as lower-case hex.
 *
 * @param bytes The bytes.
 * @returns The digest.
 */
export async function sha256Hex(bytes: Uint8Array): Promise<string> {
  const d = new Uint8Array(
    await crypto.subtle.digest("SHA-256", new Uint8Array(bytes)),
  );
  return Array.from(d, (b) => b.toString(16).padStart(2, "0")).join("");
}

function parseTrusted(text: string): TrustedFiles | undefined {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return undefined;
  }
  if (typeof value !== "object" || value === null) return undefined;
  const files = (value as { files?: unknown }).files;
  if (typeof files !== "object" || files === null || Array.isArray(files)) {
    return undefined;
  }
  const out: TrustedFiles = {};
  for (const [path, hash] of Object.entries(files)) {
    if (typeof hash === "string" && /^[0-9a-f]{64}$/.test(hash)) {
      out[path] = hash;
    }
  }
  return out;
}

/**
 * Reads the trusted files. A missing file trusts nothing; an unreadable or
 * malformed one trusts nothing and says why.
 *
 * @param relaviumDir The Relavium home.
 * @returns The trusted files, and a notice when the file was unusable.
 */
export async function readTrusted(
  relaviumDir: string,
): Promise<{ files: TrustedFiles; notice?: string }> {
  const path = trustFilePath(relaviumDir);
  const read = await readRegularFile(path);
  if (!read.ok) {
    if (read.error.kind === "missing") return { files: {} };
    return {
      files: {},
      notice: `Cannot use the trust file: ${
        describeFileProblem(path, read.error)
      }: no project file is trusted`,
    };
  }
  const text = new TextDecoder().decode(read.value);
  const files = parseTrusted(text);
  return files === undefined
    ? {
      files: {},
      notice: `${path} is not a valid trust file: no project file is trusted`,
    }
    : { files };
}

/**
 * Records trust in files (replacing earlier hashes of the same paths),
 * writing a temporary file then renaming it over the old one.
 *
 * @param relaviumDir The Relavium home (created when missing).
 * @param entries Absolute paths and the hashes of their bytes.
 * @returns Nothing, or an `internal` fault naming the trust file.
 */
export async function recordTrust(
  relaviumDir: string,
  entries: TrustedFiles,
): Promise<Result<void, CliFault>> {
  const path = trustFilePath(relaviumDir);
  try {
    await Deno.mkdir(relaviumDir, { recursive: true, mode: 0o700 });
    const current = await readTrusted(relaviumDir);
    const files: TrustedFiles = { ...current.files, ...entries };
    const sorted = Object.fromEntries(
      Object.entries(files).sort(([a], [b]) => a < b ? -1 : a > b ? 1 : 0),
    );
    const tmp = `${path}.${crypto.randomUUID()}.tmp`;
    await Deno.writeTextFile(
      tmp,
      `${JSON.stringify({ version: 1, files: sorted }, null, 2)}\n`,
      { mode: 0o600 },
    );
    await Deno.rename(tmp, path);
    return ok(undefined);
  } catch (e) {
    return err(fault(
      "internal",
      `Cannot write ${path}: ${e instanceof Error ? e.name : "error"}`,
    ));
  }
}
