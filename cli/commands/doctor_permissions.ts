/**
 * `doctor --permissions`: the least-privilege `deno run` /
 * `deno compile` flags for the current configuration and an agent's tools
 * and MCP servers (the built-in chat agent's tools and every enabled
 * global server by default), with `--deny-net` for the SSRF
 * ranges, plus warnings about broad grants and allowlisted interpreters.
 *
 * @module
 */
import { join } from "../../schema/paths.ts";
import { fileURLToPath as fromFileUrl } from "node:url";
import { allBuiltinTools } from "../../tools/builtin/all.ts";
import {
  allowlistWarnings,
  broadGrantWarnings,
  derivePermissions,
  permissionFlags,
} from "../../tools/permissions.ts";
import type { ToolPermission } from "../../tools/sandbox/permission_query.ts";
import type { LoadedConfig } from "../config/config.ts";
import type { McpServerEntry } from "../config/mcp_schema.ts";
import type { Agent } from "../../schema/agent.ts";
import { registryOf } from "../run/keys.ts";
import { denyNetExcept } from "./deny_net.ts";
import { buildToolRegistry } from "../run/tool_wiring.ts";
import { allowlistEntryRisk } from "../../tools/sandbox/launchers.ts";

/** Hosts of the built-in providers' default endpoints. */
const DEFAULT_HOSTS: Readonly<Record<string, string>> = {
  anthropic: "api.anthropic.com:443",
  openai: "api.openai.com:443",
  deepseek: "api.deepseek.com:443",
  gemini: "generativelanguage.googleapis.com:443",
};

/**
 * Variables the CLI reads. (Agent files are read with `npm:js-yaml`, which
 * reads no environment; `npm:yaml`, used only by `parseWorkflow`, would
 * need `LOG_STREAM` / `LOG_TOKENS`.)
 */
const CLI_ENV = [
  "HOME",
  "USERPROFILE",
  "RELAVIUM_HOME",
  "NO_COLOR",
  "FORCE_COLOR",
  "CI",
];

/**
 * The permission advice.
 */
export interface PermissionAdvice {
  /** `deno run` / `deno compile` flags, `--no-prompt` last. */
  flags: string[];
  /** Broad grants, interpreters, values Deno cannot express. */
  warnings: string[];
  /** The risk of each allowlist entry that applies. */
  allowlist: Array<{ entry: string; glob: boolean; risk: string }>;
  /**
   * The absolute path of the CLI's entry script when it runs from local
   * files (what the flags go with); absent for a compiled binary.
   */
  script?: string;
  /**
   * What `relavium serve` needs beyond `flags`: the address it listens on
   * (`[serve] host` and `port`) and the variable holding its token.
   */
  serve: { listen: string; env?: string };
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
 * Options of {@linkcode advisePermissions}.
 */
export interface AdviceOptions {
  /** The agent's `tools:` (default: the built-in chat agent's). */
  tools?: readonly string[];
  /**
   * The providers the agent calls (its own and its fallbacks'): only their
   * hosts are granted. Default: the default provider and every provider
   * with its own base URL.
   */
  providers?: readonly string[];
  /**
   * The system resolvers as `ip:53` (`parseResolvConf` of
   * `/etc/resolv.conf`): `http_request` checks every DNS answer.
   */
  nameServers?: readonly string[];
  /**
   * The MCP servers the session starts (see {@linkcode mcpEntriesOf}):
   * `--allow-run` for each stdio server's program (and `kill` for its
   * process group), `--allow-net` for each HTTP server's host.
   */
  mcpServers?: readonly McpServerEntry[];
}

/**
 * The MCP servers an agent names, as config entries: a `{ref}` is the
 * global entry it names (if enabled), an inline server is itself. Without
 * an agent, every enabled server of the global config.
 *
 * @param config The loaded config.
 * @param agent The agent, if any.
 * @returns The entries.
 */
export function mcpEntriesOf(
  config: LoadedConfig,
  agent?: Agent,
): McpServerEntry[] {
  const globals = (config.layers.global?.data.mcp_servers ?? []).filter((g) =>
    g.enabled !== false
  );
  if (agent === undefined) return globals;
  return (agent.mcp_servers ?? []).flatMap((s): McpServerEntry[] => {
    if ("ref" in s) return globals.filter((g) => g.id === s.ref);
    if (s.transport !== "stdio" && s.transport !== "http") return [];
    return [{
      id: s.id,
      transport: s.transport,
      ...(s.command === undefined ? {} : { command: s.command }),
      ...(s.url === undefined ? {} : { url: s.url }),
      ...(s.allow_local_endpoint === undefined
        ? {}
        : { allow_local_endpoint: s.allow_local_endpoint }),
    }];
  });
}

/** The built-in chat agent's tools (`default_agent.ts`). */
const CHAT_AGENT_TOOLS = ["read_file", "list_directory", "git_status"];

/**
 * The tools a chat may use for this config: the agent's, plus what the
 * interactive REPL adds on its own — `read_file`'s capability for
 * `@path`, and `run_command`'s for `!cmd` when an allowlist is set.
 */
function sessionGrant(
  agentTools: readonly string[],
  allowlisted: boolean,
): string[] {
  const out = new Set([...agentTools, "read_file"]);
  if (allowlisted) out.add("run_command");
  return [...out];
}

/**
 * The folder of the CLI's own modules when it runs from local files
 * (`deno run cli.ts`): command modules load on first use (deno.json
 * `lazy-dynamic-imports`, which keeps `--version` and `--help` as fast as
 * a bare `deno run`), and Deno checks read access for each. A compiled
 * binary or a remote URL needs nothing.
 */
function sourceRoot(): string | undefined {
  const url = new URL("../../", import.meta.url);
  if (url.protocol !== "file:") return undefined;
  return fromFileUrl(url).replace(/[\\/]+$/, "");
}

function hostName(hostPort: string): string {
  const m = /^\[([^\]]+)\](?::\d+)?$/.exec(hostPort);
  if (m !== null) return m[1] ?? "";
  const i = hostPort.lastIndexOf(":");
  return i < 0 ? hostPort : hostPort.slice(0, i);
}

/**
 * Derives the flags for a session in `cwd` with an agent's tools (the
 * built-in chat agent's by default): `--allow-*`
 * (`kill` beside scoped `--allow-run` when `run_command` or `git_commit`
 * is granted; the resolvers' `:53` and, with allowed domains,
 * `0.0.0.0/0:443` when `http_request` is: it connects to the checked
 * address, so a grant by name would not cover it), then `--deny-net`
 * with the SSRF ranges minus what must stay reachable (local providers,
 * resolvers), which Deno enforces on every connect even inside that
 * range, then `--no-prompt`. Warnings: broad grants, allowlisted
 * interpreters, what the flags cannot express (IPv6 ranges).
 *
 * @param config The loaded config.
 * @param cwd The effective working directory.
 * @param query Reads a permission's state by name (broad-grant check).
 * @param options The agent's tools and the system resolvers.
 * @returns The flags and warnings.
 */
export function advisePermissions(
  config: LoadedConfig,
  cwd: string,
  query: (
    descriptor: { name: "read" | "write" | "run" | "net" | "env" },
  ) => string,
  options: AdviceOptions = {},
): PermissionAdvice {
  const { resolved, paths } = config;
  const chat = resolved.chat;
  const allowlist = {
    allowedCommands: chat.allowedCommands.value,
    allowedCommandGlobs: chat.allowedCommandGlobs.value,
  };
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
  const localHosts: string[] = [];
  const envKeys = [...CLI_ENV];
  const providers = registryOf(resolved.providers);
  for (const p of resolved.providers) {
    const host = p.baseUrl !== undefined
      ? hostOf(p.baseUrl)
      : DEFAULT_HOSTS[p.id];
    // The agent's providers; without an agent, the default provider and
    // every provider with its own base URL.
    const used = options.providers !== undefined
      ? options.providers.includes(p.id)
      : p.id === chat.defaultProvider?.value || p.baseUrl !== undefined;
    if (used && host !== undefined) netHosts.push(host);
    if (p.allowLocal && host !== undefined) localHosts.push(hostName(host));
    envKeys.push(...providers.keyVariables(p.id));
    envKeys.push(
      `RELAVIUM_${p.id.toUpperCase().replaceAll("-", "_")}_BASE_URL`,
    );
  }
  const mcp = options.mcpServers ?? [];
  const mcpRun = mcp.flatMap((m) =>
    m.transport === "stdio" && m.command !== undefined ? [m.command] : []
  );
  let mcpHttp = false;
  for (const m of mcp) {
    const host = m.transport === "http" && m.url !== undefined
      ? hostOf(m.url)
      : undefined;
    if (host === undefined) continue;
    mcpHttp = true;
    // The connection goes to the checked address, not the name (as for
    // http_request): a name's grant is the IPv4 range on its port.
    const literal = host.startsWith("[") ||
      /^\d{1,3}(\.\d{1,3}){3}:/.test(host);
    netHosts.push(
      literal ? host : `0.0.0.0/0:${host.slice(host.lastIndexOf(":") + 1)}`,
    );
    if (m.allow_local_endpoint === true) localHosts.push(hostName(host));
  }
  const granted = sessionGrant(
    options.tools ?? CHAT_AGENT_TOOLS,
    allowlist.allowedCommands.length + allowlist.allowedCommandGlobs.length >
      0,
  );
  const http = granted.includes("http_request");
  // The CLI checks the DNS answers of custom endpoints (provider_dns.ts).
  const customDns = resolved.providers.some((p) =>
    p.baseUrl !== undefined && !(p.allowLocal && p.baseUrlSource !== "env")
  );
  // An HTTP MCP server's name is resolved and checked like http_request's.
  const nameServers = http || customDns || mcpHttp
    ? options.nameServers ?? []
    : [];
  const permissions: ToolPermission[] = derivePermissions({
    roots,
    granted,
    tools: allBuiltinTools(),
    os: registry.ok ? registry.value.plan.os : "posix",
    ...(paths.relaviumDir === undefined
      ? {}
      : { configDir: paths.relaviumDir, storeDir: paths.relaviumDir }),
    ...allowlist,
    allowedDomains: chat.allowedDomains.value,
    netHosts,
    nameServers,
    envKeys,
  });
  for (const command of mcpRun) permissions.push({ name: "run", command });
  const os = registry.ok ? registry.value.plan.os : "posix";
  if (
    mcpRun.length > 0 && os === "posix" &&
    !permissions.some((p) => p.name === "run" && p.command === "kill")
  ) {
    // A stdio server's process group is killed on close.
    permissions.push({ name: "run", command: "kill" });
  }
  if (paths.projectRoot !== undefined) {
    permissions.push({
      name: "read",
      path: join(paths.projectRoot, ".relavium"),
    });
  }
  const source = sourceRoot();
  if (source !== undefined) permissions.push({ name: "read", path: source });
  const deny = denyNetExcept([...localHosts, ...nameServers.map(hostName)]);
  const { flags, warnings } = permissionFlags(permissions, {
    denyNet: deny.deny,
  });
  const runPrograms = permissions.flatMap((p) =>
    p.name === "run" ? [p.command] : []
  );
  const serveTable = config.layers.global?.data.serve ?? {};
  const serveHost = serveTable.host ?? "127.0.0.1";
  return {
    flags,
    ...(source === undefined ? {} : { script: join(source, "cli.ts") }),
    serve: {
      listen: `${serveHost.includes(":") ? `[${serveHost}]` : serveHost}:${
        serveTable.port ?? 4780
      }`,
      ...(serveTable.token_env === undefined
        ? {}
        : { env: serveTable.token_env }),
    },
    allowlist: [
      ...allowlist.allowedCommands.map((entry) => ({ entry, glob: false })),
      ...allowlist.allowedCommandGlobs.map((entry) => ({ entry, glob: true })),
    ].map((e) => ({ ...e, risk: allowlistEntryRisk(e.entry, e.glob) })),
    warnings: [
      ...warnings,
      ...deny.warnings,
      ...((http || customDns || mcpHttp) && nameServers.length === 0
        ? [
          "No DNS resolver found (/etc/resolv.conf): http_request, HTTP MCP servers and the check of custom provider endpoints need --allow-net for the resolver's address:53",
        ]
        : []),
      ...(http && chat.allowedDomains.value.length > 0
        ? [
          "http_request connects to the checked address, not the name: --allow-net=0.0.0.0/0:443 covers IPv4 hosts; Deno takes no IPv6 range, so an IPv6-only host needs --allow-net=[address]:443 added by hand",
        ]
        : []),
      ...broadGrantWarnings(query, runPrograms),
      ...allowlistWarnings(allowlist),
    ],
  };
}
