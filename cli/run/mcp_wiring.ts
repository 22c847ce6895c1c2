/**
 * The MCP servers of a CLI session: the agent's `mcp_servers` resolved
 * against `[[mcp_servers]]` of the global config (a `{ref}` names a
 * global entry; its `tools_allowlist` narrows it), narrowed by the
 * workspace and project files, secrets read from the environment, then
 * connected (`tools/mcp/`). A server that cannot be used is one stderr
 * line and the session goes on without it. Loaded only when the agent
 * names a server: this module and the MCP SDK behind it.
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
import type { PersistedSession } from "../../host/host.ts";
import type { Agent } from "../../schema/agent.ts";
import type { LoadedConfig } from "../config/config.ts";
import type { McpServerEntry } from "../config/mcp_schema.ts";
import {
  mcpServerDraft,
  type McpServerEvent,
  type McpToolRegistry,
  openMcpTools,
} from "../../tools/mcp/registry.ts";
import {
  DEFAULT_STARTUP_TIMEOUT_MS,
  DEFAULT_TOOL_TIMEOUT_MS,
  type McpServerSpec,
  resolveSecretRefs,
} from "../../tools/mcp/spec.ts";
import type { ScopedToolRegistry } from "../../tools/scoped_registry.ts";
import type { ToolDefinition } from "../../tools/tool.ts";
import { baseEnvKeys } from "../../tools/sandbox/child_env.ts";
import { VERSION } from "../version.ts";

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

/** The stderr line of a server event, if it has one. */
export function mcpEventLine(e: McpServerEvent): string | undefined {
  switch (e.state) {
    case "failed":
      return `MCP server ${e.server} failed, its tools are absent: ${e.reason}`;
    case "skipped_tool":
      return `MCP server ${e.server}: tool ${e.tool} is left out: ${e.reason}`;
    default:
      return undefined;
  }
}

/**
 * Connects the servers and joins their tools to the session's.
 *
 * @param input The resolved servers (see {@linkcode resolveMcpServers}) and
 *   the environment.
 * @param io How to build the registry, resolve names, and where notices
 *   go. HTTP servers are reached over the pinned connection (the checked
 *   address, never the name again), not through the io's fetch.
 * @returns The joined registry.
 */
export async function wireMcp(
  input: {
    servers: readonly McpServerSpec[];
    env(name: string): string | undefined;
    /** Ids of the agent's servers that were not started. */
    absent?: readonly string[];
  },
  io: {
    build(extra: readonly ToolDefinition<unknown>[]): ScopedToolRegistry;
    resolveDns?: (name: string) => Promise<readonly string[]>;
    notice(line: string): void;
    /** The model's window (tokens), when known: a notice past 10 %. */
    windowTokens?: number;
    /** Every server event, besides the notices. */
    onEvent?(event: McpServerEvent): void;
  },
): Promise<McpToolRegistry> {
  const { servers } = input;
  const posix = Deno.build.os !== "windows";
  const baseEnv: Record<string, string> = {};
  for (const k of baseEnvKeys(posix ? "posix" : "windows")) {
    const v = input.env(k);
    if (v !== undefined) baseEnv[k] = v;
  }
  let schemaTokens = 0;
  const registry = await openMcpTools({
    servers,
    ...(input.absent === undefined ? {} : { absent: input.absent }),
    build: io.build,
    connect: {
      baseEnv,
      posix,
      resolve: io.resolveDns ?? ((name) => Deno.resolveDns(name, "A")),
      client: { name: "relavium", version: VERSION },
    },
    onEvent: (e) => {
      if (e.state === "connected") schemaTokens += e.schemaTokens;
      io.onEvent?.(e);
      const line = mcpEventLine(e);
      if (line !== undefined) io.notice(line);
    },
  });
  const window = io.windowTokens;
  if (window !== undefined && schemaTokens > window / 10) {
    io.notice(
      `the MCP tools' schemas take about ${schemaTokens} tokens, more than 10 % of the model's ${window}-token window; narrow them with tools_allowlist, enabled_tools or disabled_tools`,
    );
  }
  return registry;
}

/**
 * Carries a run's server events to its session: those of connecting
 * (which happens before the session opens) wait, and are published as
 * `session:mcp_server` once it is open; later ones (a `closed`) go at
 * once while the session's channel is open.
 */
export interface McpEventRelay {
  /** Takes a server event (the `onEvent` of {@linkcode wireMcp}). */
  onEvent(event: McpServerEvent): void;
  /**
   * Publishes what waited on the open session and what follows. Its
   * `close()` then first closes the servers (each `closed` precedes
   * `session:cancelled`).
   *
   * @param live The open session.
   * @param closeServers Starts closing the servers (idempotent).
   */
  attach(live: PersistedSession, closeServers: () => Promise<void>): void;
}

/**
 * A relay for one run.
 *
 * @returns The relay.
 */
export function mcpEventRelay(): McpEventRelay {
  const waiting: McpServerEvent[] = [];
  let session: PersistedSession | undefined;
  function publish(live: PersistedSession, e: McpServerEvent): void {
    if (live.events.closed || live.session.state === "cancelled") return;
    const draft = mcpServerDraft(e);
    if (draft !== undefined) live.emitMcpServer(draft);
  }
  return {
    onEvent(e): void {
      if (session === undefined) waiting.push(e);
      else publish(session, e);
    },
    attach(live, closeServers): void {
      session = live;
      for (const e of waiting.splice(0)) publish(live, e);
      const close = live.close;
      live.close = (): void => {
        void closeServers();
        close();
      };
    },
  };
}

/** What joining a run's servers needs beyond {@linkcode wireMcp}'s input. */
export type RunMcpIo = Omit<
  Parameters<typeof wireMcp>[1],
  "notice" | "onEvent"
>;

/** A run's servers joined to its registry. */
export interface JoinedRunMcp {
  /** The registry with the servers' tools. */
  registry: McpToolRegistry;
  /** Closes the servers. */
  close(): Promise<void>;
  /** Puts the servers' events on the open session (see {@linkcode McpEventRelay}). */
  attach(live: PersistedSession): void;
}

/** A run's MCP servers, resolved before its registry is built. */
export interface RunMcp {
  /** Values read from the environment: the session screens them. */
  readonly secrets: readonly string[];
  /** A line for each server left out, and what connecting says. */
  readonly notices: string[];
  /** Connects the servers and joins their tools to the run's registry. */
  join(io: RunMcpIo): Promise<JoinedRunMcp>;
}

/**
 * Resolves the agent's servers for a run (the file's inline stdio servers
 * only once approved: by `approve`, else by what was recorded before).
 *
 * @param input Agent, config, workspace, environment, the agent's file.
 * @param approve Asks about the file's unapproved inline servers.
 * @returns The resolved servers, ready to join.
 */
export async function resolveRunMcp(
  input: Omit<McpResolveInput, "approved">,
  approve?: (input: {
    agent: Agent;
    agentFile: string;
    config: LoadedConfig;
  }) => Promise<Set<string>>,
): Promise<RunMcp> {
  const file = input.agentFile;
  const approved = file === undefined
    ? undefined
    : approve === undefined
    ? await (await import("./mcp_trust.ts")).approvedServers(
      input.agent,
      file,
      input.config,
    )
    : await approve({
      agent: input.agent,
      agentFile: file,
      config: input.config,
    });
  const resolved = resolveMcpServers({
    ...input,
    ...(approved === undefined ? {} : { approved }),
  });
  const notices = resolved.notices;
  return {
    secrets: resolved.secrets,
    notices,
    async join(io): Promise<JoinedRunMcp> {
      const relay = mcpEventRelay();
      const registry = await wireMcp({
        servers: resolved.servers,
        env: input.env,
        absent: resolved.skipped.map((s) => s.id),
      }, {
        ...io,
        notice: (line) => void notices.push(line),
        onEvent: (e) => relay.onEvent(e),
      });
      return {
        registry,
        close: () => registry.close(),
        attach: (live) => relay.attach(live, () => registry.close()),
      };
    },
  };
}
