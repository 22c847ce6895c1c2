/**
 * `config path` and `config show`: where the config files are,
 * and every resolved, secret-free setting with the layer it came from.
 *
 * @module
 */
import type { CliCommand } from "../args.ts";
import {
  type ConfigPaths,
  loadCliConfig,
  locateConfig,
} from "../config/config.ts";
import type {
  ConfigSource,
  ResolvedConfig,
  Sourced,
} from "../config/resolve.ts";
import type { UntrustedFile } from "../config/apply_trust.ts";
import { stripControl } from "../io/control.ts";
import {
  type CommandEnv,
  type CommandResult,
  configRequestOf,
} from "../command_env.ts";

/**
 * One row of `config show`.
 */
export interface ConfigEntry {
  key: string;
  value: unknown;
  source: ConfigSource | "unset";
}

function entry<T>(key: string, s: Sourced<T> | undefined): ConfigEntry {
  return s === undefined
    ? { key, value: null, source: "unset" }
    : { key, value: s.value, source: s.source };
}

/**
 * Flattens a resolved config into rows, in a stable order.
 *
 * @param r The resolved config.
 * @returns One row per setting, provider and variable.
 */
export function configEntries(r: ResolvedConfig): ConfigEntry[] {
  const c = r.chat;
  const rows: ConfigEntry[] = [
    entry("chat.default_model", c.defaultModel),
    entry("chat.default_provider", c.defaultProvider),
    entry("chat.reasoning_effort", c.reasoningEffort),
    entry("chat.fs_scope", c.fsScope),
    entry("chat.allowed_commands", c.allowedCommands),
    entry("chat.allowed_command_globs", c.allowedCommandGlobs),
    entry("chat.allowed_domains", c.allowedDomains),
    entry("chat.command_timeout_ms", c.commandTimeoutMs),
    entry("chat.max_turns", c.maxTurns),
    entry("chat.max_messages", c.maxMessages),
    entry("chat.auto_compact", c.autoCompact),
    entry("chat.compact_threshold", c.compactThreshold),
    entry("chat.max_cost_microcents", c.maxCostMicrocents),
    entry("chat.on_exceed", c.onExceed),
    entry("chat.strict_cost_cap", c.strictCostCap),
    entry("chat.prompt_caching", c.promptCaching),
    entry("chat.first_byte_timeout_ms", c.firstByteTimeoutMs),
    entry("chat.idle_timeout_ms", c.idleTimeoutMs),
    entry("chat.max_response_bytes", c.maxResponseBytes),
    entry("defaults.model", r.defaults.model),
    entry("defaults.fs_scope", r.defaults.fsScope),
    entry("defaults.max_tokens_estimate", r.defaults.maxTokensEstimate),
  ];
  for (const [k, v] of Object.entries(r.variables)) {
    rows.push(entry(`variables.${k}`, v));
  }
  for (const p of r.providers) {
    const value: Record<string, unknown> = { kind: p.kind };
    if (p.baseUrl !== undefined) value.base_url = p.baseUrl;
    if (p.apiKeyEnv !== undefined) value.api_key_env = p.apiKeyEnv;
    if (!p.builtIn) value.allow_local = p.allowLocal;
    rows.push({
      key: `providers.${p.id}`,
      value,
      source: p.baseUrlSource === "env" ? "env" : p.source,
    });
  }
  return rows;
}

function renderValue(value: unknown): string {
  if (value === null) return "(unset)";
  if (typeof value === "object" && !Array.isArray(value)) {
    return `{ ${
      Object.entries(value as Record<string, unknown>)
        .map(([k, v]) => `${k} = ${JSON.stringify(v)}`).join(", ")
    } }`;
  }
  return JSON.stringify(value);
}

async function fileState(
  path: string | undefined,
): Promise<{ path: string; exists: boolean } | null> {
  if (path === undefined) return null;
  try {
    await Deno.stat(path);
    return { path, exists: true };
  } catch {
    return { path, exists: false };
  }
}

async function describePaths(
  paths: ConfigPaths,
): Promise<Record<string, unknown>> {
  return {
    cwd: paths.cwd,
    global: await fileState(paths.globalFile),
    globalFromFlag: paths.globalFromFlag,
    projectRoot: paths.projectRoot ?? null,
    workspace: await fileState(paths.workspaceFile),
    project: await fileState(paths.projectFile),
    history: await fileState(paths.historyDb),
  };
}

function pathLine(
  label: string,
  state: unknown,
  fallback: string,
): string {
  const s = state as { path: string; exists: boolean } | null;
  const text = s === null
    ? fallback
    : `${s.path}${s.exists ? "" : " (missing)"}`;
  return `${label.padEnd(10)} ${text}`;
}

/**
 * One line about a project file the user has not trusted.
 *
 * @param u The file and the keys it lost.
 * @returns `# <path> is not trusted: …`.
 */
export function untrustedLine(u: UntrustedFile): string {
  return `# ${
    stripControl(u.path)
  } is not trusted (the trust command applies it): ${
    u.ignored.length === 0
      ? "nothing ignored, it only narrows"
      : `ignored ${
        stripControl(u.ignored.join(", "))
      } (they would widen or reroute your settings)`
  }`;
}

/**
 * Runs `config path` or `config show`.
 *
 * @param command The parsed command.
 * @param ctx The command context.
 * @returns 0, or a fault (`invalid_config`, `not_found` for `--config`).
 */
export async function runConfig(
  command: Extract<CliCommand, { name: "config-path" | "config-show" }>,
  ctx: CommandEnv,
): Promise<CommandResult> {
  const req = configRequestOf(ctx);
  const { io } = ctx;
  if (command.name === "config-path") {
    const located = await locateConfig(req);
    if (!located.ok) return located.error;
    const d = await describePaths(located.value);
    if (ctx.globals.json) {
      io.stdout.write(`${JSON.stringify(d)}\n`);
      return 0;
    }
    const noProject = `(no .relavium/ folder above ${located.value.cwd})`;
    io.stdout.write(
      [
        pathLine(
          located.value.globalFromFlag ? "global*" : "global",
          d.global,
          "(no home: set HOME or RELAVIUM_HOME)",
        ),
        pathLine("workspace", d.workspace, noProject),
        pathLine("project", d.project, noProject),
        pathLine("history", d.history, "(no home: set HOME or RELAVIUM_HOME)"),
      ].join("\n") + "\n",
    );
    return 0;
  }
  const loaded = await loadCliConfig(req);
  if (!loaded.ok) return loaded.error;
  const { resolved, paths, untrusted } = loaded.value;
  if (!ctx.globals.quiet) {
    for (const n of resolved.notices) io.stderr.write(`notice: ${n}\n`);
  }
  const rows = configEntries(resolved);
  if (ctx.globals.json) {
    io.stdout.write(
      `${
        JSON.stringify({
          files: await describePaths(paths),
          settings: rows,
          untrusted,
        })
      }\n`,
    );
    return 0;
  }
  const width = Math.max(...rows.map((r) => r.key.length));
  io.stdout.write(
    [
      ...rows.map((r) =>
        `${r.key.padEnd(width)} = ${renderValue(r.value)}  # ${r.source}`
      ),
      ...untrusted.map(untrustedLine),
    ].join("\n") + "\n",
  );
  return 0;
}
