/**
 * One connection to one MCP server: the SDK's `Client` over our stdio
 * transport or the SDK's streamable-HTTP transport (through the guarded
 * fetch), connected and listed within `startupTimeoutMs`. A
 * `notifications/tools/list_changed` re-lists in the background; the
 * caller decides when a new listing applies (between turns). Every
 * `tools/call` carries the server's `toolTimeoutMs` and the call's abort
 * signal (the SDK then sends `notifications/cancelled`).
 *
 * @module
 */
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js";
import {
  ErrorCode,
  ToolListChangedNotificationSchema,
} from "@modelcontextprotocol/sdk/types.js";
import { childEnv } from "../sandbox/child_env.ts";
import type { ConnectTcp } from "../deno/_net.ts";
import { checkMcpUrl, type FetchLike, guardedFetch } from "./http_fetch.ts";
import { type McpServerSpec, toolAllowed } from "./spec.ts";
import { DenoStdioTransport } from "./stdio_transport.ts";

/** MCP tool annotations (hints; never trusted to lower approval). */
export interface McpAnnotations {
  /** Display title. */
  title?: string;
  /** The tool does not change its environment. */
  readOnlyHint?: boolean;
  /** The tool may destroy or overwrite. */
  destructiveHint?: boolean;
  /** Repeating a call has no further effect. */
  idempotentHint?: boolean;
  /** The tool reaches an open world (the web). */
  openWorldHint?: boolean;
}

/** A tool as the server lists it. */
export interface McpToolInfo {
  /** Its name on the server. */
  name: string;
  /** Its description (may be empty). */
  description: string;
  /** Its input JSON Schema, as sent. */
  inputSchema: Record<string, unknown>;
  /** Its hints. */
  annotations?: McpAnnotations;
}

/** One part of a call's result, as the server sent it. */
export type McpContentPart = { type: string } & Record<string, unknown>;

/** How a `tools/call` ended. */
export type McpCallOutcome =
  | {
    ok: true;
    isError: boolean;
    content: readonly McpContentPart[];
    structuredContent?: unknown;
  }
  | { ok: false; kind: "timeout" | "closed" | "failed"; message: string };

/** A live connection. */
export interface McpConnection {
  /** The server id. */
  readonly id: string;
  /** The latest listing (filtered by the server's and agent's lists). */
  readonly tools: readonly McpToolInfo[];
  /** Called when a re-listing after `list_changed` has finished. */
  onToolsChanged?: () => void;
  /**
   * Calls a tool.
   *
   * @param name The tool's name on the server.
   * @param args Its arguments.
   * @param signal Aborts the call (the server is told to cancel).
   * @returns How it ended; never rejects.
   */
  callTool(
    name: string,
    args: Record<string, unknown>,
    signal: AbortSignal,
  ): Promise<McpCallOutcome>;
  /** Resolves when a re-listing in progress has finished. */
  settled(): Promise<void>;
  /** The server's recent stderr (stdio only). */
  stderrTail(): string;
  /** Closes the connection (kills a stdio server's process group). */
  close(): Promise<void>;
}

/** What connecting needs besides the server. */
export interface ConnectDeps {
  /** The host's values of the base keys a child inherits. */
  baseEnv: Readonly<Record<string, string>>;
  /** Whether the host has POSIX process groups. */
  posix: boolean;
  /** A and AAAA answers of a name (HTTP servers). */
  resolve: (name: string) => Promise<readonly string[]>;
  /**
   * A fetch replacing HTTP servers' pinned connection (default none: the
   * request goes to the checked address).
   */
  fetch?: FetchLike;
  /** The pinned connection's TCP connect (default `Deno.connect`). */
  connectTcp?: ConnectTcp;
  /** This client's name and version, sent at `initialize`. */
  client: { name: string; version: string };
}

/** At most this many pages of `tools/list`. */
const MAX_LIST_PAGES = 50;

async function transportFor(
  spec: McpServerSpec,
  deps: ConnectDeps,
): Promise<{ transport: Transport; tail: () => string }> {
  const e = spec.endpoint;
  if (e.transport === "stdio") {
    const stdio = new DenoStdioTransport({
      command: e.command,
      args: e.args,
      env: childEnv(deps.baseEnv, e.env, deps.posix ? "posix" : "windows"),
      cwd: e.cwd,
      posix: deps.posix,
    });
    return { transport: stdio, tail: () => stdio.stderrTail };
  }
  // Refused before any connection is attempted.
  await checkMcpUrl(e.url, {
    allowLocalEndpoint: e.allowLocalEndpoint,
    resolve: deps.resolve,
  });
  const fetch = guardedFetch({
    allowLocalEndpoint: e.allowLocalEndpoint,
    headers: e.headers,
    resolve: deps.resolve,
    ...(deps.fetch === undefined ? {} : { fetch: deps.fetch }),
    ...(deps.connectTcp === undefined ? {} : { connect: deps.connectTcp }),
  });
  return {
    transport: new StreamableHTTPClientTransport(new URL(e.url), { fetch }),
    tail: () => "",
  };
}

function toolInfo(t: {
  name: string;
  description?: string | undefined;
  inputSchema: Record<string, unknown>;
  annotations?: McpAnnotations | undefined;
}): McpToolInfo {
  return {
    name: t.name,
    description: t.description ?? "",
    inputSchema: t.inputSchema,
    ...(t.annotations === undefined ? {} : { annotations: t.annotations }),
  };
}

/** The JSON-RPC error code of an SDK error (`McpError`), if any. */
function codeOf(e: unknown): number | undefined {
  const code = e instanceof Error ? (e as { code?: unknown }).code : undefined;
  return typeof code === "number" ? code : undefined;
}

function messageOf(e: unknown): string {
  return e instanceof Error ? e.message : String(e);
}

/**
 * Connects to a server and lists its tools within `startupTimeoutMs`.
 *
 * @param spec The server.
 * @param deps Environment, resolver, fetch, client identity.
 * @returns The connection.
 * @throws {Error} When it cannot connect or list in time (a started
 *   server is killed first).
 */
export async function connectMcpServer(
  spec: McpServerSpec,
  deps: ConnectDeps,
): Promise<McpConnection> {
  const { transport, tail } = await transportFor(spec, deps);
  const client = new Client(deps.client, { capabilities: {} });
  const startup = AbortSignal.timeout(spec.startupTimeoutMs);
  async function listAll(signal?: AbortSignal): Promise<McpToolInfo[]> {
    const out: McpToolInfo[] = [];
    let cursor: string | undefined;
    for (let page = 0; page < MAX_LIST_PAGES; page++) {
      const r = await client.listTools(
        cursor === undefined ? {} : { cursor },
        {
          timeout: spec.startupTimeoutMs,
          ...(signal === undefined ? {} : { signal }),
        },
      );
      for (const t of r.tools) {
        if (toolAllowed(spec, t.name)) out.push(toolInfo(t));
      }
      cursor = r.nextCursor;
      if (cursor === undefined) break;
    }
    return out;
  }
  let tools: McpToolInfo[];
  try {
    await client.connect(transport, {
      signal: startup,
      timeout: spec.startupTimeoutMs,
    });
    tools = await listAll(startup);
  } catch (e) {
    await client.close().catch(() => undefined);
    await transport.close().catch(() => undefined);
    const why = startup.aborted
      ? `no answer within ${spec.startupTimeoutMs} ms`
      : messageOf(e);
    const stderr = tail().trim();
    throw new Error(
      stderr === "" ? why : `${why}; stderr: ${stderr.slice(-500)}`,
      { cause: e },
    );
  }
  let closed = false;
  let relisting: Promise<void> = Promise.resolve();
  client.onclose = () => {
    closed = true;
  };
  const connection: McpConnection = {
    id: spec.id,
    get tools(): readonly McpToolInfo[] {
      return tools;
    },
    async callTool(name, args, signal): Promise<McpCallOutcome> {
      if (closed) {
        return { ok: false, kind: "closed", message: "the server has gone" };
      }
      try {
        const r = await client.callTool({ name, arguments: args }, undefined, {
          signal,
          timeout: spec.toolTimeoutMs,
        });
        return {
          ok: true,
          isError: r.isError === true,
          content: (r.content ?? []) as McpContentPart[],
          ...(r.structuredContent === undefined
            ? {}
            : { structuredContent: r.structuredContent }),
        };
      } catch (e) {
        if (codeOf(e) === ErrorCode.RequestTimeout) {
          return {
            ok: false,
            kind: "timeout",
            message: `timed out after ${spec.toolTimeoutMs} ms`,
          };
        }
        if (
          closed ||
          codeOf(e) === ErrorCode.ConnectionClosed
        ) {
          return { ok: false, kind: "closed", message: "the server has gone" };
        }
        return { ok: false, kind: "failed", message: messageOf(e) };
      }
    },
    settled: () => relisting,
    stderrTail: tail,
    async close(): Promise<void> {
      closed = true;
      await client.close().catch(() => undefined);
      await transport.close().catch(() => undefined);
    },
  };
  client.setNotificationHandler(ToolListChangedNotificationSchema, () => {
    relisting = listAll().then((next) => {
      tools = next;
      connection.onToolsChanged?.();
    }, () => undefined);
  });
  return connection;
}
