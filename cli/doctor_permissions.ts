/**
 * `doctor --permissions` (tools.md §10): the least-privilege `deno run` /
 * `deno compile` flags for the current configuration and the built-in
 * chat agent's tools, plus warnings about broad grants.
 *
 * @module
 */
import { join } from "node:path";
import { builtinTools } from "../tools/builtins.ts";
import {
  broadGrantWarnings,
  derivePermissions,
  permissionFlags,
} from "../tools/permissions.ts";
import type { ToolPermission } from "../tools/permission_query.ts";
import type { LoadedConfig } from "./config.ts";
import { keyVariables } from "./keys.ts";
import { buildToolRegistry } from "./tool_wiring.ts";

/** Hosts of the built-in providers' default endpoints. */
const DEFAULT_HOSTS: Readonly<Record<string, string>> = {
  anthropic: "api.anthropic.com:443",
  openai: "api.openai.com:443",
  deepseek: "api.deepseek.com:443",
  gemini: "generativelanguage.googleapis.com:443",
};

/**
 * Variables the CLI reads: its own, plus `LOG_STREAM` / `LOG_TOKENS`, which
 * `npm:yaml`'s parser reads on every parse (an agent file, a workflow):
 * under `--no-prompt` without them a YAML read fails with `NotCapable`.
 */
const CLI_ENV = [
  "HOME",
  "USERPROFILE",
  "RELAVIUM_HOME",
  "NO_COLOR",
  "FORCE_COLOR",
  "CI",
  "LOG_STREAM",
  "LOG_TOKENS",
];

/**
 * The permission advice.
 *
 * @example Value
 * ```ts
 * import type { PermissionAdvice } from "./doctor_permissions.ts";
 * const a: PermissionAdvice = { flags: ["--allow-read=/w", "--no-prompt"], warnings: [] };
 * ```
 */
export interface PermissionAdvice {
  /** `deno run` / `deno compile` flags, `--no-prompt` last. */
  flags: string[];
  /** Broad grants, interpreters, values Deno cannot express. */
  warnings: string[];
}

function hostOf(url: string): string | undefined {
  try {
    const u = new URL(url);
    const port = u.port !== "" ? u.port : u.protocol === "http:" ? "80" : "443";
    return `${u.hostname}:${port}`;
  } catch {
    return undefined;
  }
}

/**
 * Derives the flags for a session in `cwd` with the built-in agent.
 *
 * @param config The loaded config.
 * @param cwd The effective working directory.
 * @param query Reads a permission's state by name (broad-grant check).
 * @returns The flags and warnings.
 *
 * @example Flags for a fresh folder
 * ```ts
 * import { advisePermissions } from "./doctor_permissions.ts";
 * import { loadCliConfig } from "./config.ts";
 * import assert from "node:assert/strict";
 * const dir = await Deno.realPath(await Deno.makeTempDir());
 * const cfg = await loadCliConfig({ cwd: dir, env: (n) => n === "RELAVIUM_HOME" ? `${dir}/rh` : undefined });
 * assert.ok(cfg.ok);
 * if (cfg.ok) {
 *   const a = advisePermissions(cfg.value, dir, () => "prompt");
 *   assert.equal(a.flags[0], `--allow-read=${dir},${dir}/rh`);
 *   assert.equal(a.flags.at(-1), "--no-prompt");
 * }
 * await Deno.remove(dir, { recursive: true });
 * ```
 */
export function advisePermissions(
  config: LoadedConfig,
  cwd: string,
  query: (
    descriptor: { name: "read" | "write" | "run" | "net" | "env" },
  ) => string,
): PermissionAdvice {
  const { resolved, paths } = config;
  const chat = resolved.chat;
  const registry = buildToolRegistry({
    context: { workingDir: cwd, fsScopeTier: chat.fsScope.value },
    ...(paths.projectRoot === undefined
      ? {}
      : { projectRoot: paths.projectRoot }),
    ...(paths.relaviumDir === undefined
      ? {}
      : { relaviumDir: paths.relaviumDir }),
  });
  const roots = registry.ok ? [...registry.value.plan.roots] : [cwd];
  const netHosts: string[] = [];
  const envKeys = [...CLI_ENV];
  for (const p of resolved.providers) {
    const host = p.baseUrl !== undefined
      ? hostOf(p.baseUrl)
      : DEFAULT_HOSTS[p.id];
    // The default provider, and every provider with its own base URL.
    const used = p.id === chat.defaultProvider?.value ||
      p.baseUrl !== undefined;
    if (used && host !== undefined) netHosts.push(host);
    envKeys.push(...keyVariables(p.id, resolved.providers));
    envKeys.push(
      `RELAVIUM_${p.id.toUpperCase().replaceAll("-", "_")}_BASE_URL`,
    );
  }
  const tools = builtinTools();
  const permissions: ToolPermission[] = derivePermissions({
    roots,
    granted: ["read_file", "list_directory", "git_status"],
    tools,
    os: registry.ok ? registry.value.plan.os : "posix",
    ...(paths.relaviumDir === undefined
      ? {}
      : { configDir: paths.relaviumDir, storeDir: paths.relaviumDir }),
    allowedCommands: chat.allowedCommands.value,
    allowedCommandGlobs: chat.allowedCommandGlobs.value,
    allowedDomains: chat.allowedDomains.value,
    netHosts,
    envKeys,
  });
  if (paths.projectRoot !== undefined) {
    permissions.push({
      name: "read",
      path: join(paths.projectRoot, ".relavium"),
    });
  }
  const { flags, warnings } = permissionFlags(permissions);
  const runPrograms = permissions.flatMap((p) =>
    p.name === "run" ? [p.command] : []
  );
  return {
    flags,
    warnings: [...warnings, ...broadGrantWarnings(query, runPrograms)],
  };
}
