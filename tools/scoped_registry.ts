/**
 * The registry a host holds: the session's `ToolRegistry` plus what the
 * host shows or wires (scope, limits, ids, a user's `!` and `@path`, MCP
 * servers). Declared apart from its maker so the MCP folder, which
 * wraps one, does not import the maker.
 *
 * @module
 */
import type { McpServer } from "../schema/agent.ts";
import type { SessionEventDraft } from "../schema/event.ts";
import type { UserFileResult } from "./builtin/user_file.ts";
import type {
  ToolDispatchContext,
  ToolRegistry,
  UserCommandOutcome,
} from "./registry.ts";
import type { ScopePlan } from "./sandbox/fs_scope.ts";
import type { ToolLimits } from "./sandbox/limits.ts";

/**
 * The registry plus what the host needs to show or wire.
 */
export interface ScopedToolRegistry extends ToolRegistry {
  /** The effective filesystem scope. */
  readonly plan: ScopePlan;
  /** Notices to print once (e.g. the `full` tier clamp). */
  readonly notices: readonly string[];
  /** Effective limits. */
  readonly limits: Readonly<ToolLimits>;
  /** Registered ids, in registration order. */
  readonly toolIds: readonly string[];
  /** Registered and neither governed nor gated (`ask`/`plan` advertise it). */
  isReadOnly(toolId: string): boolean;
  /**
   * A user's `!` command through the `run_command` policy (needs
   * `run_command` registered, not granted). Never throws.
   */
  runUserCommand(
    request: { command: string; args: readonly string[] },
    ctx: Omit<ToolDispatchContext, "granted">,
  ): Promise<UserCommandOutcome>;
  /**
   * A user's `@path`: one file read through `read_file`'s capability
   * (jail, floors, Deno permission, binary refusal, size cap), whatever
   * the grant. Never throws.
   */
  readUserFile(path: string, signal: AbortSignal): Promise<UserFileResult>;
  /**
   * This registry with the tools of MCP servers beside its own: each
   * server (inline `stdio` or `http`, as an agent's `mcp_servers` writes
   * it) is connected and listed within 10 seconds, and each of its tools
   * becomes `mcp_<server>_<tool>`, offered whenever the server is
   * connected and governed `egress` (refused `no_approval_hook` without
   * an approver). A server that fails is reported through `onEvent` and
   * its tools are absent. Loads the MCP SDK; `close()` ends every
   * connection (a stdio server's process group is killed).
   *
   * @param servers The servers (a `{ ref }` entry names the CLI's global
   *   config and is reported failed here). An `http` server may also
   *   take `bearer_token_env` (the variable whose value goes out as
   *   `Authorization: Bearer …`) and `headers_env` (header name to
   *   variable name), read through `options.env`; every value read is
   *   withheld from the server's results.
   * @param options `env` reads the base variables a stdio server
   *   inherits (`PATH`, `HOME`, …), each `{{secrets.NAME}}` of its
   *   `env` values and an `http` server's header variables (absent ⇒
   *   none); `onEvent` hears each server's `session:mcp_server` state
   *   (hand it to the session's `emitMcpServer` once open); `fetch`
   *   replaces HTTP servers' pinned connection (the SSRF checks still
   *   run first; by default each request goes to the checked address).
   * @returns The joined registry.
   * @throws {TypeError} When this registry already has MCP servers.
   */
  withMcpServers(
    servers: readonly (McpServer & {
      bearer_token_env?: string;
      headers_env?: Readonly<Record<string, string>>;
    })[],
    options?: {
      env?: { get(name: string): string | undefined };
      onEvent?(
        event: Extract<SessionEventDraft, { type: "session:mcp_server" }>,
      ): void;
      fetch?: (input: string | URL, init?: RequestInit) => Promise<Response>;
    },
  ): Promise<ScopedToolRegistry & { close(): Promise<void> }>;
}
