/**
 * MCP servers for a library host (`ScopedToolRegistry.withMcpServers`):
 * the agent-file form of a server (inline `stdio` or `http`) resolved to
 * a spec with the defaults, its `{{secrets.NAME}}` read from the host's
 * `env`, then connected beside the registry's own tools. The host chose
 * the servers, so they run as given (no approval step: that is the CLI's
 * rule for files that come with a repository).
 *
 * @module
 */
import type { McpServer } from "../../schema/agent.ts";
import { TOKEN } from "../deno/_http1.ts";
import { baseEnvKeys } from "../sandbox/child_env.ts";
import type { ScopedToolRegistry } from "../scoped_registry.ts";
import type { ToolDefinition } from "../tool.ts";
import {
  type McpServerDraft,
  mcpServerDraft,
  type McpToolRegistry,
  openMcpTools,
} from "./registry.ts";
import {
  DEFAULT_STARTUP_TIMEOUT_MS,
  DEFAULT_TOOL_TIMEOUT_MS,
  type McpServerSpec,
  resolveSecretRefs,
} from "./spec.ts";

/** What joining needs besides the servers. */
export interface JoinOptions {
  /** Base variables and secrets; absent ⇒ none. */
  env?: { get(name: string): string | undefined };
  /** Each server's state. */
  onEvent?(event: McpServerDraft): void;
  /**
   * A fetch replacing HTTP servers' pinned connection (default none: each
   * request goes to the address its checks resolved, never to the name).
   */
  fetch?: (input: string | URL, init?: RequestInit) => Promise<Response>;
  /** The workspace: a stdio server's working directory. */
  workingDir: string;
  /** The registry with these extra tools beside the host's own. */
  build(extra: readonly ToolDefinition<unknown>[]): ScopedToolRegistry;
}

/** A server as a spec, or why it cannot be used. */
/**
 * The library form of a server: the agent-file form and, for `http`,
 * the headers the host gives from its `env` (`headers_env`: header name
 * to variable name; `bearer_token_env`: the variable of
 * `Authorization: Bearer …`).
 */
export type LibraryMcpServer = McpServer & {
  bearer_token_env?: string;
  headers_env?: Readonly<Record<string, string>>;
};

function specOf(
  server: LibraryMcpServer,
  options: JoinOptions,
): McpServerSpec | { id: string; reason: string } {
  if ("ref" in server) {
    return {
      id: server.ref,
      reason:
        "a { ref } names an entry of the CLI's global config; give the server inline",
    };
  }
  const base = {
    id: server.id,
    startupTimeoutMs: DEFAULT_STARTUP_TIMEOUT_MS,
    toolTimeoutMs: DEFAULT_TOOL_TIMEOUT_MS,
  };
  const missing: string[] = [];
  // Every value read is withheld from the server's results.
  const secrets: string[] = [];
  const read = (name: string): string => {
    const value = options.env?.get(name);
    if (value === undefined || value === "") missing.push(name);
    else secrets.push(value);
    return value ?? "";
  };
  const unset = () => ({
    id: server.id,
    reason: `the environment variable ${missing.join(", ")} is not set`,
  });
  if (server.transport === "http") {
    const headers: Record<string, string> = {};
    for (const [name, from] of Object.entries(server.headers_env ?? {})) {
      if (!TOKEN.test(name)) {
        return {
          id: server.id,
          reason: `the header name ${JSON.stringify(name)} is not valid`,
        };
      }
      headers[name.toLowerCase()] = read(from);
    }
    if (server.bearer_token_env !== undefined) {
      const token = read(server.bearer_token_env);
      headers["authorization"] = `Bearer ${token}`;
    }
    if (missing.length > 0) return unset();
    return {
      ...base,
      endpoint: {
        transport: "http",
        url: server.url ?? "",
        allowLocalEndpoint: server.allow_local_endpoint === true,
        headers,
      },
      ...(secrets.length === 0 ? {} : { secrets }),
    };
  }
  if (server.transport !== "stdio") {
    return {
      id: server.id,
      reason: `the ${server.transport} transport is not supported`,
    };
  }
  const env: Record<string, string> = {};
  for (const [k, v] of Object.entries(server.env ?? {})) {
    env[k] = resolveSecretRefs(v, read);
  }
  if (missing.length > 0) return unset();
  return {
    ...base,
    endpoint: {
      transport: "stdio",
      command: server.command ?? "",
      args: server.args ?? [],
      env,
      cwd: options.workingDir,
    },
    ...(secrets.length === 0 ? {} : { secrets }),
  };
}

/**
 * Connects the servers and joins their tools to the host's registry.
 *
 * @param servers The servers, as an agent file writes them.
 * @param options Env, events, fetch, workspace, the registry builder.
 * @returns The joined registry; servers that failed are left out.
 */
export async function joinMcpServers(
  servers: readonly LibraryMcpServer[],
  options: JoinOptions,
): Promise<McpToolRegistry> {
  const emit = (e: McpServerDraft): void => options.onEvent?.(e);
  const specs: McpServerSpec[] = [];
  const absent: string[] = [];
  for (const s of servers) {
    const spec = specOf(s, options);
    if ("reason" in spec) {
      absent.push(spec.id);
      emit({
        type: "session:mcp_server",
        server: spec.id,
        state: "failed",
        reason: spec.reason,
      });
    } else specs.push(spec);
  }
  const posix = Deno.build.os !== "windows";
  const baseEnv: Record<string, string> = {};
  for (const k of baseEnvKeys(posix ? "posix" : "windows")) {
    const v = options.env?.get(k);
    if (v !== undefined) baseEnv[k] = v;
  }
  const own = options.fetch;
  return await openMcpTools({
    servers: specs,
    absent,
    build: options.build,
    connect: {
      baseEnv,
      posix,
      resolve: (name) => Deno.resolveDns(name, "A"),
      ...(own === undefined ? {} : { fetch: (u, i) => own(u, i) }),
      client: { name: "@relavium/session", version: "library" },
    },
    onEvent: (e) => {
      const draft = mcpServerDraft(e);
      if (draft !== undefined) emit(draft);
    },
  });
}
