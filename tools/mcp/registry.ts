/**
 * The tools of a session's MCP servers, joined to its built-in tool
 * registry. Each server gets one connection, opened (in parallel) within
 * its `startupTimeoutMs`; one that fails is reported once and its tools
 * are absent. Every listed tool becomes a tool `mcp_<server>_<tool>`
 * registered beside the built-ins, granted by the agent naming the
 * server (its `tools:` need not list it) and governed `egress`. The set
 * advertised at a turn's start stays the turn's: a re-listing after
 * `list_changed` applies at the next `advertise`. `close()` ends every
 * connection (stdio servers' process groups are killed), reporting each
 * `closed` as it starts.
 *
 * This file, and everything that imports the MCP SDK, loads only when an
 * agent names a server.
 *
 * @module
 */
import type { ToolDef } from "../../llm/provider.ts";
import type { SessionEventDraft } from "../../schema/event.ts";
import type { ScopedToolRegistry } from "../scoped_registry.ts";
import type { ToolDefinition } from "../tool.ts";
import {
  type ConnectDeps,
  connectMcpServer,
  type McpConnection,
} from "./connection.ts";
import { mcpToolId } from "./names.ts";
import { fatalOutcome } from "../outcomes.ts";
import type { McpServerSpec } from "./spec.ts";
import { mcpToolDefinition, modelSchema } from "./tool_def.ts";

/** What happened to a server (`session:mcp_server`-shaped). */
export type McpServerEvent =
  | { server: string; state: "connecting" }
  | {
    server: string;
    state: "connected";
    /** Tools offered. */
    tools: number;
    /** Estimated tokens of their schemas (JSON characters / 4). */
    schemaTokens: number;
  }
  | { server: string; state: "failed"; reason: string }
  | { server: string; state: "skipped_tool"; tool: string; reason: string }
  | { server: string; state: "closed" };

/** A server event as the session publishes it. */
export type McpServerDraft = Extract<
  SessionEventDraft,
  { type: "session:mcp_server" }
>;

/**
 * The `session:mcp_server` event of a server event (`undefined` for a
 * left-out tool, which is a notice only).
 *
 * @param e The server event.
 * @returns The event draft, if any.
 */
export function mcpServerDraft(e: McpServerEvent): McpServerDraft | undefined {
  const base = { type: "session:mcp_server" as const, server: e.server };
  switch (e.state) {
    case "connecting":
    case "closed":
      return { ...base, state: e.state };
    case "connected":
      return {
        ...base,
        state: "connected",
        tools: e.tools,
        schemaTokens: e.schemaTokens,
      };
    case "failed":
      return { ...base, state: "failed", reason: e.reason };
    case "skipped_tool":
      return undefined;
    default: {
      const never: never = e;
      return never;
    }
  }
}

/** Options of {@linkcode openMcpTools}. */
export interface McpToolsOptions {
  /** The servers the agent names, resolved. */
  servers: readonly McpServerSpec[];
  /**
   * Builds the session's registry with these extra tools beside the
   * built-ins (called again when a listing changes).
   */
  build(extra: readonly ToolDefinition<unknown>[]): ScopedToolRegistry;
  /** Environment, resolver, fetch and client identity. */
  connect: ConnectDeps;
  /** Each server's state changes. */
  onEvent?(event: McpServerEvent): void;
  /**
   * Ids of servers the agent names that were not started (not
   * configured, not approved): a call to one of their tools is refused
   * `tool_unavailable` naming the server, like one of a server that
   * failed.
   */
  absent?: readonly string[];
}

/** The session's registry with its MCP servers. */
export interface McpToolRegistry extends ScopedToolRegistry {
  /** Connected servers and their tool ids. */
  servers(): { id: string; tools: string[] }[];
  /** Resolves when every re-listing in progress has finished. */
  settled(): Promise<void>;
  /** Closes every connection; idempotent. */
  close(): Promise<void>;
}

/**
 * Connects the servers and returns the joined registry.
 *
 * @param options Servers, the registry builder, connection deps, events.
 * @returns The registry; servers that failed are left out.
 */
export async function openMcpTools(
  options: McpToolsOptions,
): Promise<McpToolRegistry> {
  const emit = options.onEvent ?? (() => {});
  const connections: McpConnection[] = [];
  const settledConnects = await Promise.all(options.servers.map(async (s) => {
    emit({ server: s.id, state: "connecting" });
    try {
      return {
        spec: s,
        connection: await connectMcpServer(s, options.connect),
      };
    } catch (e) {
      emit({
        server: s.id,
        state: "failed",
        reason: e instanceof Error ? e.message : String(e),
      });
      return undefined;
    }
  }));
  const specs = new Map<string, McpServerSpec>();
  for (const c of settledConnects) {
    if (c === undefined) continue;
    connections.push(c.connection);
    specs.set(c.connection.id, c.spec);
  }
  const down = [
    ...options.servers.map((s) => s.id).filter((id) => !specs.has(id)),
    ...(options.absent ?? []),
  ];
  const builtinIds = new Set(options.build([]).toolIds);
  // Ids stay stable across re-listings.
  const ids = new Map<string, string>();
  let byServer = new Map<string, string[]>();
  function definitions(report: boolean): ToolDefinition<unknown>[] {
    const taken = new Set([...builtinIds, ...ids.values()]);
    const out: ToolDefinition<unknown>[] = [];
    byServer = new Map();
    for (const c of connections) {
      const own: string[] = [];
      let chars = 0;
      for (const info of c.tools) {
        const schema = modelSchema(info);
        if (!schema.ok) {
          if (report) {
            emit({
              server: c.id,
              state: "skipped_tool",
              tool: info.name,
              reason: schema.error,
            });
          }
          continue;
        }
        const key = `${c.id}\u0000${info.name}`;
        let id = ids.get(key);
        if (id === undefined) {
          id = mcpToolId(c.id, info.name, taken);
          ids.set(key, id);
          taken.add(id);
        }
        const spec = specs.get(c.id);
        out.push(
          mcpToolDefinition(
            id,
            info,
            c,
            schema.value,
            spec?.maxResultBytes,
            spec?.secrets,
          ) as ToolDefinition<unknown>,
        );
        own.push(id);
        chars += JSON.stringify(schema.value).length + info.description.length;
      }
      byServer.set(c.id, own);
      if (report) {
        emit({
          server: c.id,
          state: "connected",
          tools: own.length,
          schemaTokens: Math.ceil(chars / 4),
        });
      }
    }
    return out;
  }
  /** The server not connected whose tool `name` would be, if any. */
  function downServer(name: string): string | undefined {
    let best: string | undefined;
    for (const id of down) {
      const prefix = mcpToolId(id, "", new Set());
      if (
        name.startsWith(prefix) && name.length > prefix.length &&
        (best === undefined || id.length > best.length)
      ) best = id;
    }
    return best;
  }
  let dirty = false;
  let active = options.build(definitions(true));
  let mcpIds = new Set([...byServer.values()].flat());
  for (const c of connections) c.onToolsChanged = () => void (dirty = true);
  function current(): ScopedToolRegistry {
    return active;
  }
  let closing: Promise<void> | undefined;
  return {
    get plan() {
      return current().plan;
    },
    get notices() {
      return current().notices;
    },
    get limits() {
      return current().limits;
    },
    get toolIds() {
      return current().toolIds;
    },
    isReadOnly: (id) => current().isReadOnly(id),
    advertise(granted, policy): ToolDef[] {
      // A turn starts here: a changed listing applies from now on.
      if (dirty) {
        dirty = false;
        active = options.build(definitions(false));
        mcpIds = new Set([...byServer.values()].flat());
      }
      return current().advertise([...granted, ...mcpIds], policy);
    },
    dispatch(call, ctx) {
      const gone = mcpIds.has(call.name) ? undefined : downServer(call.name);
      if (gone !== undefined) {
        // A recorded call (a cassette) to a server this run does not have.
        return Promise.resolve(fatalOutcome(
          { toolId: call.name, displayInput: {} },
          "tool_unavailable",
          `Tool unavailable: ${call.name} is a tool of the MCP server ${gone}, which is not connected in this session`,
        ));
      }
      return current().dispatch(
        call,
        mcpIds.has(call.name)
          ? { ...ctx, granted: [...ctx.granted, call.name] }
          : ctx,
      );
    },
    runUserCommand: (request, ctx) => current().runUserCommand(request, ctx),
    readUserFile: (path, signal) => current().readUserFile(path, signal),
    withMcpServers: () =>
      Promise.reject(
        new TypeError(
          "Cannot join MCP servers twice: give every server in one call",
        ),
      ),
    servers: () =>
      connections.map((c) => ({ id: c.id, tools: byServer.get(c.id) ?? [] })),
    async settled(): Promise<void> {
      await Promise.all(connections.map((c) => c.settled()));
    },
    close(): Promise<void> {
      if (closing === undefined) {
        // Reported as closing starts, while the session can still say so.
        for (const c of connections) emit({ server: c.id, state: "closed" });
        closing = Promise.all(connections.map((c) => c.close())).then(
          () => undefined,
        );
      }
      return closing;
    },
  };
}
