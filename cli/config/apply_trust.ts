/**
 * Applies the user's trust to the loaded layers: a `workspace.toml` or
 * `project.toml` whose exact bytes the user has not trusted keeps only
 * what narrows the layers below it (`narrow.ts`); one notice per such file
 * names the keys it ignored. Then every allowlist glob that still applies
 * is checked: a glob on a launcher is a config error naming the entry.
 *
 * @module
 */
import { err, ok, type Result } from "../../schema/result.ts";
import { launcherGlobProblem } from "../../tools/sandbox/launchers.ts";
import { type CliFault, fault } from "../fault.ts";
import type { ConfigLayers } from "./layers.ts";
import { findKeyLine } from "./lines.ts";
import { narrowUntrusted } from "./narrow.ts";
import { resolveConfig } from "./resolve.ts";
import { readTrusted } from "./trust_store.ts";

/** A project file the user has not trusted, and what it may not set. */
export interface UntrustedFile {
  path: string;
  kind: "workspace" | "project";
  /** The dropped widening keys (empty: everything in it narrows). */
  ignored: string[];
  /**
   * SHA-256 of the exact bytes these keys were read from: what a trust
   * question about them records (never a later read of the file).
   */
  sha256?: string;
}

/** The layers as they apply, and what trust left out. */
export interface TrustedLayers {
  layers: ConfigLayers;
  untrusted: UntrustedFile[];
  notices: string[];
}

function checkGlobs(layers: ConfigLayers): Result<void, CliFault> {
  for (const f of [layers.global, layers.workspace, layers.project]) {
    const globs = f?.data.chat?.allowed_command_globs ?? [];
    for (const [i, g] of globs.entries()) {
      const problem = launcherGlobProblem(g);
      if (problem === undefined || f === undefined) continue;
      const line = findKeyLine(f.text, ["chat", "allowed_command_globs"]);
      return err(fault(
        "invalid_config",
        `Invalid config: ${
          line === undefined ? f.path : `${f.path}:${line}`
        }: chat.allowed_command_globs[${i}]: the glob ${
          JSON.stringify(g)
        } is refused: ${problem}`,
      ));
    }
  }
  return ok(undefined);
}

/**
 * Narrows untrusted project files and checks the allowlist globs.
 *
 * @param layers The loaded files.
 * @param relaviumDir The Relavium home (its `trusted.json`), when known.
 * @param env Reads environment variables (to resolve the lower layers).
 * @returns The layers that apply, or an `invalid_config` fault.
 */
export async function applyTrust(
  layers: ConfigLayers,
  relaviumDir: string | undefined,
  env: (name: string) => string | undefined,
): Promise<Result<TrustedLayers, CliFault>> {
  const out: ConfigLayers = {
    ...(layers.global === undefined ? {} : { global: layers.global }),
  };
  const untrusted: UntrustedFile[] = [];
  const notices: string[] = [];
  const needed = layers.workspace !== undefined ||
    layers.project !== undefined;
  const trust = needed && relaviumDir !== undefined
    ? await readTrusted(relaviumDir)
    : { files: {} };
  if (trust.notice !== undefined) notices.push(trust.notice);
  for (const key of ["workspace", "project"] as const) {
    const f = layers[key];
    if (f === undefined) continue;
    const hash = f.sha256;
    if (hash !== undefined && trust.files[f.path] === hash) {
      out[key] = f;
      continue;
    }
    const base = await resolveConfig(out, env);
    if (!base.ok) return base;
    const narrowed = narrowUntrusted(f.data, base.value);
    out[key] = { ...f, data: narrowed.data };
    untrusted.push({
      path: f.path,
      kind: f.kind,
      ignored: narrowed.ignored,
      ...(hash === undefined ? {} : { sha256: hash }),
    });
    if (narrowed.ignored.length > 0) {
      notices.push(
        `${f.path} is not trusted: ignoring ${
          narrowed.ignored.join(", ")
        } (a project file may only narrow your settings; the trust command applies them)`,
      );
    }
  }
  const globs = checkGlobs(out);
  if (!globs.ok) return globs;
  return ok({ layers: out, untrusted, notices });
}
