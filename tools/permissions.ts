/**
 * Least-privilege Deno permissions for a session: the
 * descriptors a configuration needs, and the flag printer behind
 * `doctor --permissions`.
 *
 * @module
 */
import { firstToken } from "./sandbox/_command.ts";
import { baseEnvKeys } from "./sandbox/child_env.ts";
import type { ToolPermission } from "./sandbox/permission_query.ts";
import { governedAction } from "./policy.ts";
import type { ToolDefinition } from "./tool.ts";

export {
  allowlistWarnings,
  broadGrantWarnings,
} from "./sandbox/permission_warnings.ts";

/**
 * The net grant `http_request` needs: it connects to the checked DNS
 * answer (`address:443`), never by name, so no host-name grant covers it.
 * Deno 2.9.6 takes an IPv4 CIDR with a port in `--allow-net` (verified)
 * but no IPv6 range, so an IPv6-only host needs its address granted by
 * hand; `--deny-net` still wins over it at connect time. A value for
 * printing: `Deno.permissions.query` reports a CIDR descriptor as
 * `prompt` even when granted (dispatch queries the concrete
 * `address:port`).
 */
const HTTP_CONNECT_GRANT = "0.0.0.0/0:443";

/**
 * Inputs of {@linkcode derivePermissions}.
 */
export interface PermissionPlanInput {
  /** Jail roots (canonical), workspace first. */
  roots: readonly string[];
  /** The session's effective grant. */
  granted: readonly string[];
  /** The registered tools. */
  tools: readonly ToolDefinition<unknown>[];
  /** Path flavour (selects the base env keys). */
  os: "posix" | "windows";
  /** Config directory (read). */
  configDir?: string;
  /** Session store directory (read and write). */
  storeDir?: string;
  /** `[chat].allowed_commands` (first token of each ⇒ `--allow-run`). */
  allowedCommands?: readonly string[];
  /** `[chat].allowed_command_globs` (literal first token ⇒ `--allow-run`). */
  allowedCommandGlobs?: readonly string[];
  /** `host:port` of provider base URLs and search endpoints. */
  netHosts?: readonly string[];
  /**
   * `[chat].allowed_domains`: non-empty with an http tool granted ⇒
   * `0.0.0.0/0:443` (the tool connects to the checked address, not by
   * name; Deno takes no IPv6 range).
   */
  allowedDomains?: readonly string[];
  /** Provider key variables (and other env the CLI reads). */
  envKeys?: readonly string[];
  /**
   * The system DNS resolvers as `ip:53` (see `parseResolvConf`): an
   * `http` tool checks every DNS answer with `Deno.resolveDns`, which needs
   * net access to them.
   */
  nameServers?: readonly string[];
}

/**
 * The descriptors a session needs: read per root (if an fs tool is
 * granted), config dir and store dir; write per root only if a writing
 * tool is granted, store dir always; run for allowlisted programs (if a
 * process tool is granted), fixed programs (`git`) and, on POSIX, `kill`
 * when `run_command` or a gated tool (`git_commit`, whose hooks may
 * spawn) is granted, so a timeout kills the whole process group; net for
 * provider hosts, and (when an `http` tool is granted) the DNS resolvers
 * and, if any domain is allowed, `0.0.0.0/0:443` (`http_request`
 * connects to the checked address, so a host-name grant would not cover
 * it; an IPv6-only host needs its address by hand); env for
 * the base keys (if a process tool is granted) and provider keys.
 * Deduplicated, in that order.
 *
 * @param input Roots, grant, tools and configuration.
 * @returns The descriptors.
 */
export function derivePermissions(
  input: PermissionPlanInput,
): ToolPermission[] {
  const granted = input.tools.filter((t) => input.granted.includes(t.id));
  const reads = granted.some((t) => t.policy.fsScoped);
  const writes = granted.some((t) => t.policy.fsWrite === true);
  const spawns = granted.some((t) => t.policy.spawnsProcess);
  const governedProcess = granted.some((t) =>
    governedAction(t.policy) === "process"
  );
  const http = granted.some((t) => t.policy.egress === "http");
  const out: ToolPermission[] = [];
  const seen = new Set<string>();
  function add(p: ToolPermission): void {
    const key = JSON.stringify(p);
    if (!seen.has(key)) {
      seen.add(key);
      out.push(p);
    }
  }
  if (reads) { for (const path of input.roots) add({ name: "read", path }); }
  if (input.configDir !== undefined) {
    add({ name: "read", path: input.configDir });
  }
  if (input.storeDir !== undefined) add({ name: "read", path: input.storeDir });
  if (writes) { for (const path of input.roots) add({ name: "write", path }); }
  if (input.storeDir !== undefined) {
    add({ name: "write", path: input.storeDir });
  }
  if (governedProcess) {
    for (const c of input.allowedCommands ?? []) {
      const t = firstToken(c);
      if (t !== undefined) add({ name: "run", command: t });
    }
    for (const g of input.allowedCommandGlobs ?? []) {
      const t = firstToken(g);
      if (t !== undefined && !t.includes("*") && !t.includes("?")) {
        add({ name: "run", command: t });
      }
    }
  }
  for (const t of granted) {
    const program = t.policy.fixedProgram;
    if (program !== undefined) add({ name: "run", command: program });
  }
  const treeKill = governedProcess ||
    granted.some((t) =>
      t.policy.spawnsProcess && t.policy.requiresGateApproval
    );
  if (treeKill && input.os === "posix") add({ name: "run", command: "kill" });
  for (const host of input.netHosts ?? []) add({ name: "net", host });
  if (http) {
    if ((input.allowedDomains ?? []).length > 0) {
      add({ name: "net", host: HTTP_CONNECT_GRANT });
    }
    for (const host of input.nameServers ?? []) add({ name: "net", host });
  }
  if (spawns) {
    for (const variable of baseEnvKeys(input.os)) {
      add({ name: "env", variable });
    }
  }
  for (const variable of input.envKeys ?? []) add({ name: "env", variable });
  return out;
}

/**
 * Renders descriptors as `deno run` / `deno compile` flags, one per
 * permission kind (`--allow-read=a,b`), then `--deny-net=…` when given
 * (for example `SSRF_DENY_NET` when `http_request` is granted), then
 * `--no-prompt` unless turned off. Deno has no escape for a comma inside
 * a flag value: such values are left out with a warning.
 *
 * @param permissions The descriptors.
 * @param options `noPrompt` (default `true`); `denyNet` values.
 * @returns The flags (unquoted argv entries) and warnings.
 */
export function permissionFlags(
  permissions: readonly ToolPermission[],
  options: { noPrompt?: boolean; denyNet?: readonly string[] } = {},
): { flags: string[]; warnings: string[] } {
  const order = ["read", "write", "run", "net", "env"] as const;
  const values = new Map<string, string[]>(order.map((n) => [n, []]));
  const warnings: string[] = [];
  for (const p of permissions) {
    const value = p.name === "read" || p.name === "write"
      ? p.path
      : p.name === "run"
      ? p.command
      : p.name === "net"
      ? p.host
      : p.variable;
    if (value.includes(",")) {
      warnings.push(
        `Cannot express a ${p.name} permission containing a comma; grant it by hand`,
      );
      continue;
    }
    const list = values.get(p.name);
    if (list !== undefined && !list.includes(value)) list.push(value);
  }
  const flags: string[] = [];
  for (const name of order) {
    const list = values.get(name) ?? [];
    if (list.length > 0) flags.push(`--allow-${name}=${list.join(",")}`);
  }
  const deny = (options.denyNet ?? []).filter((d) => !d.includes(","));
  if (deny.length > 0) flags.push(`--deny-net=${deny.join(",")}`);
  if (options.noPrompt ?? true) flags.push("--no-prompt");
  return { flags, warnings };
}
