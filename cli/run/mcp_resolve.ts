/**
 * The MCP servers of a CLI session: the agent's `mcp_servers` resolved
 * against `[[mcp_servers]]` of the global config (a `{ref}` names a
 * global entry; its `tools_allowlist` narrows it), narrowed by the
 * workspace and project files, secrets read from the environment; each
 * server left out is named with why. `mcp_wiring.ts` connects what this
 * resolves.
 *
 * A stdio server written inline in an agent file is not started until the
 * user approves its exact command, arguments and environment names
 * (`relavium trust <agent file>`, or the question a chat on a terminal
 * asks at start; recorded in the Relavium home beside the trusted project
 * files): the file may come with the repository, and its
 * command would otherwise run unasked.
 *
 * @module
 */
import { resolve, sep } from "../../schema/paths.ts";
import type { Agent } from "../../schema/agent.ts";
import type { LoadedConfig } from "../config/config.ts";
import type { McpServerEntry } from "../config/mcp_schema.ts";
import {
  DEFAULT_STARTUP_TIMEOUT_MS,
  DEFAULT_TOOL_TIMEOUT_MS,
  type McpServerSpec,
  resolveSecretRefs,
} from "../../tools/mcp/spec.ts";

/** What resolving needs. */
export interface McpResolveInput {
  /** The agent. */
  agent: Agent;
  /** The loaded config. */
  config: LoadedConfig;
  /** The workspace (absolute). */
  workingDir: string;
  /** Reads the environment. */
  env(name: string): string | undefined;
  /** The agent's file, when it came from one. */
  agentFile?: string;
  /** Ids of the file's inline stdio servers the user approved. */
  approved?: ReadonlySet<string>;
}

function within(root: string, path: string): boolean {
  return path === root ||
    path.startsWith(root.endsWith(sep) ? root : root + sep);
}

/** A global entry as a spec, or why it cannot be used. */
function specOf(
  entry: McpServerEntry,
  input: McpResolveInput,
  narrow: { off: boolean; disabled: string[]; allowlist?: string[] },
  secrets: string[],
): McpServerSpec | string {
  if (entry.enabled === false) return "it is disabled in the global config";
  if (narrow.off) return "a project file turns it off";
  const missing: string[] = [];
  const read = (name: string): string => {
    const v = input.env(name);
    if (v === undefined || v === "") missing.push(name);
    else secrets.push(v);
    return v ?? "";
  };
  let endpoint: McpServerSpec["endpoint"];
  if (entry.transport === "stdio") {
    const env: Record<string, string> = {};
    for (const [k, v] of Object.entries(entry.env ?? {})) {
      env[k] = resolveSecretRefs(v, read);
    }
    const cwd = resolve(input.workingDir, entry.cwd ?? ".");
    if (!within(input.workingDir, cwd)) {
      return "its cwd is outside the workspace";
    }
    endpoint = {
      transport: "stdio",
      command: entry.command ?? "",
      args: entry.args ?? [],
      env,
      cwd,
    };
  } else {
    const headers: Record<string, string> = {};
    for (const [h, name] of Object.entries(entry.headers_env ?? {})) {
      headers[h] = read(name);
    }
    if (entry.bearer_token_env !== undefined) {
      headers["authorization"] = `Bearer ${read(entry.bearer_token_env)}`;
    }
    endpoint = {
      transport: "http",
      url: entry.url ?? "",
      allowLocalEndpoint: entry.allow_local_endpoint === true,
      headers,
    };
  }
  if (missing.length > 0) {
    return `the environment variable ${missing.join(", ")} is not set`;
  }
  const disabled = [...(entry.disabled_tools ?? []), ...narrow.disabled];
  return {
    id: entry.id,
    endpoint,
    startupTimeoutMs: entry.startup_timeout_ms ?? DEFAULT_STARTUP_TIMEOUT_MS,
    toolTimeoutMs: entry.tool_timeout_ms ?? DEFAULT_TOOL_TIMEOUT_MS,
    ...(entry.max_result_bytes === undefined
      ? {}
      : { maxResultBytes: entry.max_result_bytes }),
    ...(entry.enabled_tools === undefined
      ? {}
      : { enabledTools: entry.enabled_tools }),
    ...(disabled.length === 0 ? {} : { disabledTools: disabled }),
    ...(narrow.allowlist === undefined
      ? {}
      : { toolsAllowlist: narrow.allowlist }),
  };
}

/**
 * The servers an agent names, resolved, a line for each one left out, and
 * every value read from the environment (secrets, tokens, headers: the
 * session screens them like its keys).
 *
 * @param input Agent, config, workspace, environment.
 * @returns The specs, the notices and the secret values.
 */
export function resolveMcpServers(
  input: McpResolveInput,
): {
  servers: McpServerSpec[];
  notices: string[];
  skipped: { id: string; reason: string }[];
  secrets: string[];
} {
  const { layers } = input.config;
  const globals = layers.global?.data.mcp_servers ?? [];
  const narrowings = [
    ...(layers.workspace?.data.mcp_servers ?? []),
    ...(layers.project?.data.mcp_servers ?? []),
  ];
  const servers: McpServerSpec[] = [];
  const skipped: { id: string; reason: string }[] = [];
  const secrets: string[] = [];
  for (const entry of input.agent.mcp_servers ?? []) {
    const id = "ref" in entry ? entry.ref : entry.id;
    const skip = (reason: string): void => void skipped.push({ id, reason });
    let global: McpServerEntry | undefined;
    if ("ref" in entry) {
      global = globals.find((g) => g.id === entry.ref);
      if (global === undefined) {
        skip("[[mcp_servers]] of the global config has no such id");
        continue;
      }
    } else if (entry.transport === "http") {
      global = {
        id: entry.id,
        transport: "http",
        ...(entry.url === undefined ? {} : { url: entry.url }),
        ...(entry.allow_local_endpoint === undefined
          ? {}
          : { allow_local_endpoint: entry.allow_local_endpoint }),
      };
    } else if (entry.transport === "stdio") {
      if (
        input.agentFile === undefined || input.approved?.has(id) !== true
      ) {
        const where = input.agentFile ?? `the agent ${input.agent.id}`;
        const approve = input.agentFile === undefined
          ? `declare it in [[mcp_servers]] of the global config and name it with { ref: ${id} }`
          : `approve it with: relavium trust ${input.agentFile}`;
        skip(
          `${where} declares it to run ${
            [entry.command ?? "", ...(entry.args ?? [])].join(" ")
          }, which is not approved; ${approve}`,
        );
        continue;
      }
      global = {
        id: entry.id,
        transport: "stdio",
        ...(entry.command === undefined ? {} : { command: entry.command }),
        ...(entry.args === undefined ? {} : { args: entry.args }),
        ...(entry.env === undefined ? {} : { env: entry.env }),
      };
    } else {
      skip(`the ${entry.transport} transport is not supported`);
      continue;
    }
    const mine = narrowings.filter((n) => n.id === id);
    const spec = specOf(global, input, {
      off: mine.some((n) => n.enabled === false),
      disabled: mine.flatMap((n) => n.disabled_tools ?? []),
      ...("ref" in entry && entry.tools_allowlist !== undefined
        ? { allowlist: entry.tools_allowlist }
        : {}),
    }, secrets);
    if (typeof spec === "string") skip(spec);
    else servers.push(spec);
  }
  const notices = skipped.map((s) =>
    `MCP server ${s.id} is not started: ${s.reason}`
  );
  return { servers, notices, skipped, secrets };
}
