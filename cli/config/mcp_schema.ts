/**
 * The `[[mcp_servers]]` entries of the config files. The global
 * `config.toml` declares servers; a `workspace.toml` or `project.toml`
 * may only narrow them (turn one off, or disable some of its tools).
 *
 * @module
 */
import { z } from "../../schema/zod.ts";
import { KEBAB_ID } from "../../schema/kebab.ts";
import { isRefusedEnvKey } from "../../tools/sandbox/child_env.ts";

/** A server of the global config, as written. */
export interface McpServerEntry {
  /** The server id, the `<server>` of `mcp_<server>_<tool>`. */
  id: string;
  /** How to reach it. */
  transport: "stdio" | "http";
  /** stdio: the program. */
  command?: string;
  /** stdio: its arguments. */
  args?: string[];
  /** stdio: extra variables (`{{secrets.NAME}}` reads env `NAME`). */
  env?: Record<string, string>;
  /** stdio: working directory, relative to the workspace. */
  cwd?: string;
  /** http: the streamable HTTP endpoint. */
  url?: string;
  /** http: allow a loopback address. */
  allow_local_endpoint?: boolean;
  /** http: the env variable holding a bearer token. */
  bearer_token_env?: string;
  /** http: header name → env variable holding its value. */
  headers_env?: Record<string, string>;
  /** Connect and list within (default 10000). */
  startup_timeout_ms?: number;
  /** Each call within (default 60000). */
  tool_timeout_ms?: number;
  /** A lower bound on each result's bytes. */
  max_result_bytes?: number;
  /** `false` turns the server off. */
  enabled?: boolean;
  /** Only these tools. */
  enabled_tools?: string[];
  /** Never these tools. */
  disabled_tools?: string[];
}

/** A project file's narrowing of a global server. */
export interface McpServerNarrowing {
  /** The global server's id. */
  id: string;
  /** Only `false`: a project file turns servers off, never on. */
  enabled?: false;
  /** Tools to disable. */
  disabled_tools?: string[];
}

const str = z.string({ error: "must be a string" });
const nonEmpty = str.check(z.minLength(1, "must not be empty"));
const strings = z.array(nonEmpty, { error: "must be an array of strings" });
const kebab = str.check(z.regex(KEBAB_ID, "must be a kebab-case id"));
const ms = z.number({ error: "must be a number" }).check(
  z.int("must be an integer"),
  z.positive("must be a positive integer"),
  z.maximum(2_147_483_647, "must be at most 2147483647 (ms)"),
);
const ENV_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;
const envName = str.check(
  z.regex(ENV_NAME, "must be an environment variable name"),
);

const STDIO_ONLY = ["command", "args", "env", "cwd"] as const;
const HTTP_ONLY = [
  "url",
  "allow_local_endpoint",
  "bearer_token_env",
  "headers_env",
] as const;

const entryInferred = z.strictObject({
  id: kebab,
  transport: z.enum(["stdio", "http"], { error: "must be stdio or http" }),
  command: z.exactOptional(nonEmpty),
  args: z.exactOptional(z.array(str, { error: "must be an array of strings" })),
  env: z.exactOptional(
    z.record(str, str, { error: "must be a table of strings" }),
  ),
  cwd: z.exactOptional(nonEmpty),
  url: z.exactOptional(nonEmpty),
  allow_local_endpoint: z.exactOptional(
    z.boolean({ error: "must be true or false" }),
  ),
  bearer_token_env: z.exactOptional(envName),
  headers_env: z.exactOptional(
    z.record(str, envName, { error: "must be a table of strings" }),
  ),
  startup_timeout_ms: z.exactOptional(ms),
  tool_timeout_ms: z.exactOptional(ms),
  max_result_bytes: z.exactOptional(ms),
  enabled: z.exactOptional(z.boolean({ error: "must be true or false" })),
  enabled_tools: z.exactOptional(strings),
  disabled_tools: z.exactOptional(strings),
}, { error: "must be a table" }).check(z.superRefine((s, ctx) => {
  const bad = (path: (string | number)[], message: string): void =>
    ctx.addIssue({ code: "custom", path, message });
  const other = s.transport === "stdio" ? HTTP_ONLY : STDIO_ONLY;
  for (const k of other) {
    if (s[k] !== undefined) bad([k], `not allowed with ${s.transport}`);
  }
  if (s.transport === "stdio") {
    if (s.command === undefined) bad(["command"], "stdio needs a command");
    for (const name of Object.keys(s.env ?? {})) {
      if (isRefusedEnvKey(name)) {
        bad(["env", name], "this variable may not be set");
      }
    }
    return;
  }
  if (s.url === undefined) {
    bad(["url"], "http needs a url");
    return;
  }
  let url: URL | undefined;
  try {
    url = new URL(s.url);
  } catch { /* reported below */ }
  if (url === undefined || !["http:", "https:"].includes(url.protocol)) {
    bad(["url"], "must be an http or https URL");
  } else if (url.username !== "" || url.password !== "") {
    bad(["url"], "must not embed credentials");
  }
}));

const narrowingInferred = z.strictObject({
  id: kebab,
  enabled: z.exactOptional(
    z.literal(false, {
      error: "a project file may only turn a server off (false)",
    }),
  ),
  disabled_tools: z.exactOptional(strings),
}, {
  error:
    "must be a table; a project file may only narrow a server of the global config (id, enabled = false, disabled_tools)",
});

function unique<T extends { id: string }>(
  list: z.ZodMiniType<T[]>,
): z.ZodMiniType<T[]> {
  return list.check(z.superRefine((items, ctx) => {
    const seen = new Set<string>();
    items.forEach((s, i) => {
      if (seen.has(s.id)) {
        ctx.addIssue({
          code: "custom",
          path: [i, "id"],
          message: `duplicate server "${s.id}"`,
        });
      }
      seen.add(s.id);
    });
  }));
}

/** `[[mcp_servers]]` of the global config. */
export const mcpServersSchema: z.ZodMiniType<McpServerEntry[]> = unique(
  z.array(entryInferred as z.ZodMiniType<McpServerEntry>, {
    error: "must be an array of tables",
  }),
);

/** `[[mcp_servers]]` of a project file (narrowing only). */
export const mcpNarrowingsSchema: z.ZodMiniType<McpServerNarrowing[]> = unique(
  z.array(narrowingInferred as z.ZodMiniType<McpServerNarrowing>, {
    error: "must be an array of tables",
  }),
);
