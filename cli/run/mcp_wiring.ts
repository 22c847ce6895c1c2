/**
 * The MCP servers of a CLI session, connected: the servers
 * `mcp_resolve.ts` resolved are started (`tools/mcp/`) and their tools
 * joined to the run's registry; their events reach stderr as notices and
 * the session as `session:mcp_server` once it is open. A server that
 * cannot be used is one stderr line and the session goes on without it.
 * Loaded only when the agent names a server: this module and the MCP SDK
 * behind it.
 *
 * @module
 */
import type { PersistedSession } from "../../host/host.ts";
import type { Agent } from "../../schema/agent.ts";
import type { LoadedConfig } from "../config/config.ts";
import {
  mcpServerDraft,
  type McpServerEvent,
  type McpToolRegistry,
  openMcpTools,
} from "../../tools/mcp/registry.ts";
import type { McpServerSpec } from "../../tools/mcp/spec.ts";
import type { ScopedToolRegistry } from "../../tools/scoped_registry.ts";
import type { ToolDefinition } from "../../tools/tool.ts";
import { baseEnvKeys } from "../../tools/sandbox/child_env.ts";
import { VERSION } from "../version.ts";
import { type McpResolveInput, resolveMcpServers } from "./mcp_resolve.ts";

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
