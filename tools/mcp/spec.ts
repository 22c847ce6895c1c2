/**
 * One MCP server as the session uses it: every value resolved (secrets
 * in, defaults applied, narrowing done). The CLI builds it from the
 * global `[[mcp_servers]]` entry and the agent's `mcp_servers` entry;
 * no SDK type appears here.
 *
 * @module
 */

/** Default time to connect and list tools. */
export const DEFAULT_STARTUP_TIMEOUT_MS = 10_000;
/** Default time one `tools/call` may take. */
export const DEFAULT_TOOL_TIMEOUT_MS = 60_000;

/** How to reach a server. */
export type McpEndpoint =
  | {
    transport: "stdio";
    /** The program (a name on the base `PATH`, or a path). */
    command: string;
    /** Its arguments, passed as-is (no shell). */
    args: readonly string[];
    /**
     * Declared variables, secrets resolved; the child gets these on top
     * of the base keys of `run_command` and nothing else.
     */
    env: Readonly<Record<string, string>>;
    /** Absolute working directory (inside the workspace). */
    cwd: string;
  }
  | {
    transport: "http";
    /** The streamable HTTP endpoint. */
    url: string;
    /** Loopback addresses allowed (and plain `http:` to them). */
    allowLocalEndpoint: boolean;
    /** Headers (a bearer token among them), values resolved from env. */
    headers: Readonly<Record<string, string>>;
  };

/** A resolved MCP server. */
export interface McpServerSpec {
  /** The server id (kebab), the `<server>` of `mcp_<server>_<tool>`. */
  id: string;
  /** Transport and its settings. */
  endpoint: McpEndpoint;
  /** Connect and list within this many milliseconds. */
  startupTimeoutMs: number;
  /** Passed to every `tools/call` as its timeout. */
  toolTimeoutMs: number;
  /** A lower bound than the built-in result budget, if any. */
  maxResultBytes?: number;
  /** Only these tools (by server name), when set. */
  enabledTools?: readonly string[];
  /** Never these tools (by server name). */
  disabledTools?: readonly string[];
  /** The agent's `tools_allowlist`: only these, when set. */
  toolsAllowlist?: readonly string[];
  /**
   * Values read from the environment for this server (tokens, header
   * values): withheld from its results and failures.
   */
  secrets?: readonly string[];
}

/**
 * Whether a server's tool passes the server's and the agent's lists.
 *
 * @param spec The server.
 * @param name The tool's name on the server.
 * @returns `true` when the tool is offered.
 */
export function toolAllowed(spec: McpServerSpec, name: string): boolean {
  if (spec.enabledTools !== undefined && !spec.enabledTools.includes(name)) {
    return false;
  }
  if (spec.disabledTools?.includes(name) === true) return false;
  return spec.toolsAllowlist === undefined ||
    spec.toolsAllowlist.includes(name);
}

const SECRET_REF = /\{\{\s*secrets\.([A-Za-z_][A-Za-z0-9_]*)\s*\}\}/g;

/**
 * A stdio server's `env` value with each `{{secrets.NAME}}` replaced by
 * what `read` gives for `NAME`.
 *
 * @param value The declared value.
 * @param read Reads one secret (the caller records a missing one).
 * @returns The resolved value.
 */
export function resolveSecretRefs(
  value: string,
  read: (name: string) => string,
): string {
  return value.replace(SECRET_REF, (_, name: string) => read(name));
}
