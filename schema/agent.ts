/**
 * The strict `.agent.yaml` schema.
 *
 * Types are written out (JSR forbids inferred "slow types" in a public API)
 * and `tests/schema/agent_test.ts` proves they equal zod's inference.
 *
 * @module
 */
import { z } from "./zod.ts";
import { err, ok, type Result } from "./result.ts";
import { toIssues, type ValidationIssue } from "./issues.ts";
import { KEBAB_ID } from "./kebab.ts";
import type { Holds, Same } from "./type_equal.ts";

export { KEBAB_ID } from "./kebab.ts";

/** A `{{secrets.*}}` reference, refused in `system_prompt`. */
const SECRET_REF = /\{\{\s*secrets\./;
/** Most fallback entries. */
const MAX_FALLBACK = 5;
/** Most attempts of one fallback entry. */
const MAX_ATTEMPTS = 10;

/**
 * Reasoning effort tiers.
 */
export type ReasoningEffort = "off" | "low" | "medium" | "high" | "max";

/**
 * Conversational memory policy; omitted = whole transcript.
 */
export type AgentMemory =
  | { type: "none" }
  | { type: "summary" }
  | { type: "window"; window_size: number };

/**
 * Workflow node re-dispatch policy (not used by chat turns).
 */
export interface AgentRetry {
  /** Maximum re-dispatches (1–10). */
  max: number;
  /** Backoff shape between re-dispatches. */
  backoff: "linear" | "exponential";
  /** Base backoff in milliseconds. */
  backoff_ms?: number;
  /** Error codes that trigger a re-dispatch. */
  retry_on?: Array<
    | "provider_rate_limit"
    | "provider_unavailable"
    | "tool_failed"
    | "sandbox_error"
  >;
}

/**
 * One fallback chain entry.
 */
export interface FallbackEntry {
  /** Model id. */
  model: string;
  /** Provider id (kebab). */
  provider: string;
  /** Attempts for this entry (1–10). */
  max_attempts: number;
}

/**
 * An MCP server, inline or by reference (parsed and validated; MCP itself
 * comes later).
 */
export type McpServer =
  | {
    id: string;
    transport: "stdio" | "http" | "websocket" | "sse";
    command?: string;
    args?: string[];
    env?: Record<string, string>;
    url?: string;
    allow_local_endpoint?: boolean;
  }
  | { ref: string; tools_allowlist?: string[] };

/**
 * An agent definition exactly as authored (snake_case, no defaults filled).
 */
export interface Agent {
  /** Identifier. */
  id: string;
  /** Display name. */
  name?: string;
  /** Display description. */
  description?: string;
  /** Model id. */
  model: string;
  /** Provider id (kebab). */
  provider: string;
  /** Authored system prompt; the only text placed in `system`. */
  system_prompt: string;
  /** Sampling temperature in [0, 2]. */
  temperature?: number;
  /** Output token cap. */
  max_tokens?: number;
  /** Reasoning effort for reasoning-capable models. */
  reasoning_effort?: ReasoningEffort;
  /** Granted tool ids (`[]` = none); sessions may only narrow. */
  tools?: string[];
  /** Conversational memory policy; omitted = whole transcript. */
  memory?: AgentMemory;
  /** Workflow node re-dispatch policy (unused by chat turns). */
  retry?: AgentRetry;
  /** Ordered fallback entries (≤ 5). */
  fallback_chain?: FallbackEntry[];
  /** MCP servers (validated; MCP comes later). */
  mcp_servers?: McpServer[];
  /** JSON Schema of the input (metadata only). */
  input_schema?: Record<string, unknown>;
  /** JSON Schema of the output (metadata only). */
  output_schema?: Record<string, unknown>;
}

const MAX_RETRY = 10;
const FORBIDDEN_MCP_ENV =
  /^(PATH|HOME|NODE_OPTIONS|NODE_PATH|LD_.*|DYLD_.*|GIT_.*|PYTHON.*|PERL5LIB|PERL5OPT|RUBYLIB|RUBYOPT|JAVA_TOOL_OPTIONS|_JAVA_OPTIONS|JDK_JAVA_OPTIONS|CLASSPATH|BASH_ENV|ENV|IFS|XDG_CONFIG_HOME|DENO_.*)$/i;

const kebab = z.string().check(z.regex(KEBAB_ID, "must be a kebab-case id"));
const nonEmpty = z.string().check(z.minLength(1, "must not be empty"));
const posInt = z.number().check(z.int(), z.positive());

const memorySchema = z.discriminatedUnion("type", [
  z.strictObject({ type: z.literal("none") }),
  z.strictObject({ type: z.literal("summary") }),
  z.strictObject({ type: z.literal("window"), window_size: posInt }),
]);

const agentRetryInferred = z.strictObject({
  max: posInt.check(z.maximum(MAX_RETRY, `must be at most ${MAX_RETRY}`)),
  backoff: z.enum(["linear", "exponential"]),
  backoff_ms: z.exactOptional(posInt),
  retry_on: z.exactOptional(
    z.array(
      z.enum([
        "provider_rate_limit",
        "provider_unavailable",
        "tool_failed",
        "sandbox_error",
      ]),
    ).check(
      z.minLength(1),
      z.refine((a) => new Set(a).size === a.length, "must not repeat"),
    ),
  ),
});

/**
 * Strict schema of {@linkcode AgentRetry} (shared with the workflow
 * parser's agent nodes; internal, not exported from `mod.ts`).
 */
export const agentRetrySchema: z.ZodMiniType<AgentRetry> = agentRetryInferred;

const fallbackSchema = z.strictObject({
  model: nonEmpty,
  provider: kebab,
  max_attempts: posInt.check(
    z.maximum(MAX_ATTEMPTS, `must be at most ${MAX_ATTEMPTS}`),
  ),
});

function hasCredentials(url: string): boolean {
  try {
    const u = new URL(url);
    return u.username !== "" || u.password !== "";
  } catch {
    return true;
  }
}

const mcpInline = z.strictObject({
  id: kebab,
  transport: z.enum(["stdio", "http", "websocket", "sse"]),
  command: z.exactOptional(nonEmpty),
  args: z.exactOptional(z.array(z.string())),
  env: z.exactOptional(z.record(z.string(), z.string())),
  url: z.exactOptional(nonEmpty),
  allow_local_endpoint: z.exactOptional(z.boolean()),
}).check(z.superRefine((s, ctx) => {
  if (s.transport === "stdio") {
    if (s.command === undefined) {
      ctx.addIssue({
        code: "custom",
        path: ["command"],
        message: "stdio needs a command",
      });
    }
    for (const k of ["url", "allow_local_endpoint"] as const) {
      if (s[k] !== undefined) {
        ctx.addIssue({
          code: "custom",
          path: [k],
          message: "not allowed with stdio",
        });
      }
    }
    for (const name of Object.keys(s.env ?? {})) {
      if (FORBIDDEN_MCP_ENV.test(name)) {
        ctx.addIssue({
          code: "custom",
          path: ["env", name],
          message: "this variable may not be set",
        });
      }
    }
    return;
  }
  for (const k of ["command", "args", "env"] as const) {
    if (s[k] !== undefined) {
      ctx.addIssue({
        code: "custom",
        path: [k],
        message: `not allowed with ${s.transport}`,
      });
    }
  }
  const schemes = s.transport === "websocket"
    ? ["ws:", "wss:"]
    : ["http:", "https:"];
  if (s.url === undefined) {
    ctx.addIssue({
      code: "custom",
      path: ["url"],
      message: `${s.transport} needs a url`,
    });
  } else {
    let scheme = "";
    try {
      scheme = new URL(s.url).protocol;
    } catch { /* reported below */ }
    if (!schemes.includes(scheme)) {
      ctx.addIssue({
        code: "custom",
        path: ["url"],
        message: `must be a ${schemes.join(" or ")} URL`,
      });
    } else if (hasCredentials(s.url)) {
      ctx.addIssue({
        code: "custom",
        path: ["url"],
        message: "must not embed credentials",
      });
    }
  }
}));

const mcpRef = z.strictObject({
  ref: kebab,
  tools_allowlist: z.exactOptional(z.array(nonEmpty)),
});

const mcpSchema = z.union([mcpRef, mcpInline]);

const agentInferred = z.strictObject({
  id: kebab,
  name: z.exactOptional(z.string()),
  description: z.exactOptional(z.string()),
  model: nonEmpty,
  provider: kebab,
  system_prompt: nonEmpty.check(
    z.refine((s) => !SECRET_REF.test(s), "must not reference {{secrets.*}}"),
  ),
  temperature: z.exactOptional(z.number().check(z.minimum(0), z.maximum(2))),
  max_tokens: z.exactOptional(posInt),
  reasoning_effort: z.exactOptional(
    z.enum(["off", "low", "medium", "high", "max"]),
  ),
  tools: z.exactOptional(z.array(nonEmpty)),
  memory: z.exactOptional(memorySchema),
  retry: z.exactOptional(agentRetrySchema),
  fallback_chain: z.exactOptional(
    z.array(fallbackSchema).check(
      z.maxLength(MAX_FALLBACK, `must have at most ${MAX_FALLBACK} entries`),
    ),
  ),
  mcp_servers: z.exactOptional(z.array(mcpSchema)),
  input_schema: z.exactOptional(z.record(z.string(), z.unknown())),
  output_schema: z.exactOptional(z.record(z.string(), z.unknown())),
}).check(z.superRefine((a, ctx) => {
  const seen = new Set<string>([`${a.provider}\u0000${a.model}`]);
  a.fallback_chain?.forEach((f, i) => {
    const key = `${f.provider}\u0000${f.model}`;
    if (seen.has(key)) {
      ctx.addIssue({
        code: "custom",
        path: ["fallback_chain", i],
        message: "repeats a model/provider pair already in the plan",
      });
    }
    seen.add(key);
  });
  const mcpIds = new Set<string>();
  a.mcp_servers?.forEach((s, i) => {
    const id = "ref" in s ? s.ref : s.id;
    if (mcpIds.has(id)) {
      ctx.addIssue({
        code: "custom",
        path: ["mcp_servers", i],
        message: `duplicate server "${id}"`,
      });
    }
    mcpIds.add(id);
  });
}));

/**
 * The strict agent schema. Prefer {@linkcode parseAgent}, which names the
 * source and the key path in its errors.
 */
export const agentSchema: z.ZodMiniType<Agent> = agentInferred;

/**
 * Why an agent could not be loaded: the source and every issue.
 */
export interface AgentLoadError {
  /** File path or other origin. */
  source: string;
  /** One entry per problem, each naming its key path. */
  issues: ValidationIssue[];
}

/**
 * Validates an already-decoded agent value strictly.
 *
 * @param value The decoded document (e.g. from YAML).
 * @param source The file name used in errors.
 * @returns The agent exactly as authored, or the issues.
 *
 * @example Parse
 * ```ts
 * import { parseAgent } from "@relavium/session/schema";
 * import assert from "node:assert/strict";
 * const r = parseAgent({ id: "a", model: "m", provider: "openai", system_prompt: "s", colour: 1 }, "a.agent.yaml");
 * assert.equal(r.ok, false);
 * if (!r.ok) assert.equal(r.error.issues[0]?.path, "colour");
 * ```
 */
export function parseAgent(
  value: unknown,
  source: string,
): Result<Agent, AgentLoadError> {
  if (value === null || typeof value !== "object" || Array.isArray(value)) {
    return err({
      source,
      issues: [{ path: "", message: "must be a single mapping document" }],
    });
  }
  // One parse per file: zod's generated fast path would cost more to
  // compile than it saves (same checks either way).
  const r = agentSchema.safeParse(value, { jitless: true });
  if (r.success) return ok(r.data);
  return err({ source, issues: toIssues(r.error) });
}

// Each written-out type equals what its schema infers.
type _agentRetryInferredCheck = Holds<
  Same<z.infer<typeof agentRetryInferred>, AgentRetry>
>;
type _agentInferredCheck = Holds<Same<z.infer<typeof agentInferred>, Agent>>;
