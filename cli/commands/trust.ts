/**
 * `trust [<file>]`: records the user's trust in a project file's exact
 * content (its SHA-256, in `<relavium home>/trusted.json`), so that its
 * widening keys (allowlist entries, raised caps, `[[providers]]`, the
 * default model, …) apply. Without a file: the project's `workspace.toml`
 * and `project.toml` found from the working directory. Any later change to
 * a file needs trust again.
 *
 * With an agent file (`*.yaml`, `*.yml`): approves the exact command,
 * arguments and environment names of each MCP stdio server written inline
 * in it, so the server may start; a change to any of them needs approval
 * again.
 *
 * @module
 */
import { basename, resolve } from "../../schema/paths.ts";
import type { CliCommand } from "../args.ts";
import { locateConfig } from "../config/config.ts";
import { loadConfigFile } from "../config/read.ts";
import { recordTrust, type TrustedFiles } from "../config/trust_store.ts";
import { fault } from "../fault.ts";
import { stripControl } from "../io/control.ts";
import {
  type CommandEnv,
  type CommandResult,
  configRequestOf,
} from "../command_env.ts";

/**
 * Runs `trust`.
 *
 * @param command The parsed command (an optional file).
 * @param ctx The command context.
 * @returns 0, or a fault: `not_found` (no such file, no project file),
 * `invalid_config` (the file does not load, no Relavium home), `internal`
 * (the trust file cannot be written).
 */
export async function runTrust(
  command: Extract<CliCommand, { name: "trust" }>,
  ctx: CommandEnv,
): Promise<CommandResult> {
  const located = await locateConfig(configRequestOf(ctx));
  if (!located.ok) return located.error;
  const paths = located.value;
  if (paths.relaviumDir === undefined) {
    return fault(
      "invalid_config",
      "Cannot record trust: no Relavium home (set HOME or RELAVIUM_HOME)",
    );
  }
  if (command.file !== undefined && /\.ya?ml$/i.test(command.file)) {
    const { trustAgentServers } = await import("./mcp.ts");
    return await trustAgentServers(
      ctx,
      resolve(ctx.cwd, command.file),
      paths.relaviumDir,
    );
  }
  const candidates = command.file !== undefined
    ? [resolve(ctx.cwd, command.file)]
    : [paths.workspaceFile, paths.projectFile].filter((p): p is string =>
      p !== undefined
    );
  const entries: TrustedFiles = {};
  for (const path of candidates) {
    const kind = basename(path) === "workspace.toml" ? "workspace" : "project";
    const loaded = await loadConfigFile(kind, path);
    if (!loaded.ok) return loaded.error;
    if (loaded.value === undefined) {
      if (command.file !== undefined) {
        return fault("not_found", `Config file not found: ${path}`);
      }
      continue;
    }
    if (loaded.value.sha256 !== undefined) {
      entries[path] = loaded.value.sha256;
    }
  }
  const list = Object.entries(entries);
  if (list.length === 0) {
    return fault(
      "not_found",
      `No project config to trust: no .relavium/workspace.toml or project.toml above ${
        stripControl(ctx.cwd)
      }`,
    );
  }
  const saved = await recordTrust(paths.relaviumDir, entries);
  if (!saved.ok) return saved.error;
  if (ctx.globals.json) {
    ctx.io.stdout.write(
      `${
        JSON.stringify({
          trusted: list.map(([path, sha256]) => ({ path, sha256 })),
        })
      }\n`,
    );
    return 0;
  }
  ctx.io.stdout.write(
    list.map(([path, sha256]) =>
      `Trusted ${stripControl(path)} (sha256 ${
        sha256.slice(0, 12)
      }): its settings apply until it changes\n`
    ).join(""),
  );
  return 0;
}
