/**
 * Strict schemas of the config files. Two file kinds: the global `config.toml` and the project
 * files (`workspace.toml`, `project.toml`). Keys the Relavium CLI writes
 * for its own UI are accepted and ignored.
 *
 * @module
 */
import { z } from "../../schema/zod.ts";
import type { ReasoningEffort } from "../../schema/agent.ts";
import { KEBAB_ID } from "../../schema/kebab.ts";
import type { FsScopeTier } from "../../schema/context.ts";
import {
  isBuiltInProvider,
  PROVIDER_KINDS,
  type ProviderKind,
} from "../../llm/provider_table.ts";
import { checkBaseUrl } from "./base_url.ts";
import type { Holds, Same } from "../../schema/type_equal.ts";
import {
  mcpNarrowingsSchema,
  type McpServerEntry,
  type McpServerNarrowing,
  mcpServersSchema,
} from "./mcp_schema.ts";

/**
 * The `[chat]` table as written.
 */
export interface ChatTable {
  default_model?: string;
  default_provider?: string;
  reasoning_effort?: ReasoningEffort;
  fs_scope?: FsScopeTier;
  allowed_commands?: string[];
  allowed_command_globs?: string[];
  allowed_domains?: string[];
  /** `run_command` and `!` timeout, ms (at most the 120 s ceiling). */
  command_timeout_ms?: number;
  max_turns?: number;
  max_messages?: number;
  auto_compact?: boolean;
  compact_threshold?: number;
  max_cost_microcents?: number;
  on_exceed?: "fail" | "pause_for_approval" | "warn";
  strict_cost_cap?: boolean;
  /** Anthropic prompt caching: `true` (5 minutes), `"5m"`, `"1h"`, `false`. */
  prompt_caching?: boolean | "5m" | "1h";
  /** First-byte timeout of each provider call, ms (default 60 000). */
  first_byte_timeout_ms?: number;
  /** Idle-stream timeout of each provider call, ms (default 300 000). */
  idle_timeout_ms?: number;
  /** Most bytes of one provider response (default 64 MiB). */
  max_response_bytes?: number;
}

/**
 * One `[[providers]]` entry as written.
 */
export interface ProviderEntry {
  id: string;
  kind: ProviderKind;
  base_url: string;
  api_key_env?: string;
  allow_local?: boolean;
  /** Output-cap field of an `openai-compatible` server. */
  max_tokens_param?: "max_tokens" | "max_completion_tokens";
  /** The endpoint's context window in tokens (for measured compaction). */
  context_window?: number;
  /**
   * The wire dialect of an `openai-compatible` server: `openai` (default)
   * or `deepseek` (thinking on/off, its usage fields and overflow text).
   */
  dialect?: "openai" | "deepseek";
  /**
   * Whether the endpoint's models reason: `true` sends the agent's
   * `reasoning_effort`; `false` (the default for a custom endpoint) drops it.
   */
  reasoning?: boolean;
  /** First-byte timeout of each provider call, ms (default 60 000). */
  first_byte_timeout_ms?: number;
  /** Idle-stream timeout of each provider call, ms (default 300 000). */
  idle_timeout_ms?: number;
  /** Most bytes of one provider response (default 64 MiB). */
  max_response_bytes?: number;
  /** Prices of the endpoint's models, by model id. */
  prices?: Record<string, ModelPrice>;
}

/**
 * A `[providers.prices.<model>]` table: integer micro-cents per million
 * tokens (1 µ¢ = 1e-8 USD), per token class.
 */
export interface ModelPrice {
  input: number;
  output: number;
  /** Cached input (default 0). */
  cache_read?: number;
  /** Cache write (default 0). */
  cache_write?: number;
}

/**
 * The `[serve]` table of the global file (`relavium serve`).
 */
export interface ServeTable {
  host?: string;
  port?: number;
  token_env?: string;
  cors_origins?: string[];
  heartbeat_ms?: number;
  max_clients_per_session?: number;
  approval_timeout_ms?: number;
  /** A served session idle this long releases its writer lease. */
  idle_release_ms?: number;
  /** Events kept per session for replay (in memory, or Postgres's event table). */
  events_kept?: number;
}

/**
 * The global `config.toml` as written (UI-only keys are validated loosely
 * and otherwise ignored).
 */
export interface GlobalFile {
  preferences?: {
    default_model?: string;
    default_provider?: string;
    reasoning_effort?: ReasoningEffort;
    theme?: unknown;
    alt_screen?: unknown;
    mouse?: unknown;
    show_banner?: unknown;
    copy_on_select?: unknown;
  };
  update_channel?: "stable" | "beta";
  catalog?: { auto_refresh?: boolean };
  chat?: ChatTable;
  providers?: ProviderEntry[];
  mcp_servers?: McpServerEntry[];
  serve?: ServeTable;
  /**
   * Where sessions are stored: `sqlite` (`history.db`, the default) or
   * `postgres`, whose URL comes only from the environment variable
   * `url_env` (default `RELAVIUM_PG_URL`), never from a file.
   */
  store?: { kind: "sqlite" | "postgres"; url_env?: string };
}

/**
 * A `workspace.toml` or `project.toml` as written.
 */
export interface ProjectFile {
  defaults?: {
    model?: string;
    fs_scope?: FsScopeTier;
    max_tokens_estimate?: number;
  };
  variables?: Record<string, string>;
  chat?: ChatTable;
  providers?: ProviderEntry[];
  mcp_servers?: McpServerNarrowing[];
}

const str = z.string({ error: "must be a string" });
const nonEmpty = str.check(z.minLength(1, "must not be empty"));
const bool = z.boolean({ error: "must be true or false" });
const posInt = z.number({ error: "must be a number" }).check(
  z.int("must be an integer"),
  z.positive("must be a positive integer"),
);
/** A timer's ms: a positive integer a runtime timer can hold (about 24.8 days). */
const timerMs = posInt.check(
  z.maximum(2_147_483_647, "must be at most 2147483647 (ms)"),
);
const kebab = str.check(z.regex(KEBAB_ID, "must be a kebab-case id"));
const effort = z.enum(["off", "low", "medium", "high", "max"], {
  error: "must be one of off, low, medium, high, max",
});
const fsScope = z.enum(["sandboxed", "project", "full"], {
  error: "must be one of sandboxed, project, full",
});
/** A configured `run_command` timeout never exceeds it. */
const PROCESS_TIMEOUT_CEILING_MS = 120_000;
const strings = z.array(nonEmpty, { error: "must be an array of strings" });

const chatSchema = z.strictObject({
  default_model: z.exactOptional(nonEmpty),
  default_provider: z.exactOptional(kebab),
  reasoning_effort: z.exactOptional(effort),
  fs_scope: z.exactOptional(fsScope),
  allowed_commands: z.exactOptional(strings),
  allowed_command_globs: z.exactOptional(strings),
  allowed_domains: z.exactOptional(strings),
  command_timeout_ms: z.exactOptional(posInt.check(
    z.maximum(
      PROCESS_TIMEOUT_CEILING_MS,
      `must be at most ${PROCESS_TIMEOUT_CEILING_MS} (the process-timeout ceiling)`,
    ),
  )),
  max_turns: z.exactOptional(posInt),
  max_messages: z.exactOptional(posInt),
  auto_compact: z.exactOptional(bool),
  compact_threshold: z.exactOptional(
    z.number({ error: "must be a number" }).check(
      z.gt(0, "must be greater than 0"),
      z.maximum(1, "must be at most 1"),
    ),
  ),
  max_cost_microcents: z.exactOptional(
    z.number({ error: "must be a number" }).check(
      z.int("must be an integer"),
      z.minimum(0, "must not be negative"),
      z.maximum(Number.MAX_SAFE_INTEGER, "must be a safe integer"),
    ),
  ),
  on_exceed: z.exactOptional(
    z.enum(["fail", "pause_for_approval", "warn"], {
      error: "must be one of fail, pause_for_approval, warn",
    }),
  ),
  strict_cost_cap: z.exactOptional(bool),
  prompt_caching: z.exactOptional(
    z.union([z.boolean(), z.enum(["5m", "1h"])], {
      error: 'must be true, false, "5m" or "1h"',
    }),
  ),
  first_byte_timeout_ms: z.exactOptional(timerMs),
  idle_timeout_ms: z.exactOptional(timerMs),
  max_response_bytes: z.exactOptional(posInt),
}, { error: "must be a table" });

const microcents = z.number({ error: "must be a number" }).check(
  z.int("must be an integer (micro-cents per million tokens)"),
  z.minimum(0, "must not be negative"),
);

const priceInferred = z.strictObject({
  input: microcents,
  output: microcents,
  cache_read: z.exactOptional(microcents),
  cache_write: z.exactOptional(microcents),
}, { error: "must be a table" });

const priceSchema: z.ZodMiniType<ModelPrice> = priceInferred;

/** The kinds of the provider table, for the schema and its message. */
const KINDS = Object.keys(PROVIDER_KINDS) as [ProviderKind, ...ProviderKind[]];
const KINDS_TEXT = `${KINDS.slice(0, -1).join(", ")} or ${KINDS.at(-1)}`;

function providerSchema(global: boolean): z.ZodMiniType<ProviderEntry> {
  return z.strictObject({
    id: kebab.check(
      z.refine(
        (id) => !isBuiltInProvider(id),
        "must not shadow a built-in provider id",
      ),
    ),
    kind: z.enum(KINDS, { error: `must be ${KINDS_TEXT}` }),
    base_url: nonEmpty,
    api_key_env: z.exactOptional(
      str.check(
        z.regex(
          /^[A-Za-z_][A-Za-z0-9_]*$/,
          "must be an environment variable name",
        ),
      ),
    ),
    allow_local: z.exactOptional(bool),
    max_tokens_param: z.exactOptional(
      z.enum(["max_tokens", "max_completion_tokens"], {
        error: "must be max_tokens or max_completion_tokens",
      }),
    ),
    context_window: z.exactOptional(posInt),
    dialect: z.exactOptional(
      z.enum(["openai", "deepseek"], { error: "must be openai or deepseek" }),
    ),
    reasoning: z.exactOptional(bool),
    first_byte_timeout_ms: z.exactOptional(timerMs),
    idle_timeout_ms: z.exactOptional(timerMs),
    max_response_bytes: z.exactOptional(posInt),
    prices: z.exactOptional(
      z.record(nonEmpty, priceSchema, {
        error: "must be a table of model prices",
      }),
    ),
  }, { error: "must be a table" }).check(z.superRefine((p, ctx) => {
    for (const key of ["max_tokens_param", "dialect"] as const) {
      if (p.kind !== "openai-compatible" && p[key] !== undefined) {
        ctx.addIssue({
          code: "custom",
          path: [key],
          message: 'applies only to kind = "openai-compatible"',
        });
      }
    }
    if (!global && p.api_key_env !== undefined) {
      ctx.addIssue({
        code: "custom",
        path: ["api_key_env"],
        message:
          "is only allowed in the global config (a project file must not choose where your key is read from)",
      });
    }
    const problem = checkBaseUrl(p.base_url, p.allow_local === true);
    if (problem !== undefined) {
      ctx.addIssue({ code: "custom", path: ["base_url"], message: problem });
    }
  }));
}

function providersSchema(global: boolean): z.ZodMiniType<ProviderEntry[]> {
  return z.array(providerSchema(global), {
    error: "must be an array of tables ([[providers]])",
  }).check(z.superRefine((list, ctx) => {
    const seen = new Set<string>();
    list.forEach((p, i) => {
      if (seen.has(p.id)) {
        ctx.addIssue({
          code: "custom",
          path: [i, "id"],
          message: `duplicate provider "${p.id}"`,
        });
      }
      seen.add(p.id);
    });
  }));
}

const serveSchema = z.strictObject({
  host: z.exactOptional(nonEmpty),
  port: z.exactOptional(
    z.number({ error: "must be a number" }).check(
      z.int("must be an integer"),
      z.minimum(0, "must be between 0 and 65535"),
      z.maximum(65_535, "must be between 0 and 65535"),
    ),
  ),
  token_env: z.exactOptional(
    str.check(z.regex(/^[A-Za-z_][A-Za-z0-9_]*$/, "must be a variable name")),
  ),
  cors_origins: z.exactOptional(z.array(
    str.check(
      z.regex(
        /^https?:\/\/[^/?#\s]+$/,
        "must be an exact origin (scheme://host[:port], no path)",
      ),
    ),
    { error: "must be an array of strings" },
  )),
  heartbeat_ms: z.exactOptional(timerMs),
  max_clients_per_session: z.exactOptional(posInt),
  approval_timeout_ms: z.exactOptional(timerMs),
  idle_release_ms: z.exactOptional(timerMs),
  events_kept: z.exactOptional(posInt.check(
    z.maximum(1_000_000, "must be at most 1000000"),
  )),
}, { error: "must be a table" });

const globalFileInferred = z.strictObject({
  preferences: z.exactOptional(z.strictObject({
    default_model: z.exactOptional(nonEmpty),
    default_provider: z.exactOptional(kebab),
    reasoning_effort: z.exactOptional(effort),
    theme: z.exactOptional(z.unknown()),
    alt_screen: z.exactOptional(z.unknown()),
    mouse: z.exactOptional(z.unknown()),
    show_banner: z.exactOptional(z.unknown()),
    copy_on_select: z.exactOptional(z.unknown()),
  }, { error: "must be a table" })),
  update_channel: z.exactOptional(
    z.enum(["stable", "beta"], { error: "must be stable or beta" }),
  ),
  catalog: z.exactOptional(
    z.strictObject({ auto_refresh: z.exactOptional(bool) }, {
      error: "must be a table",
    }),
  ),
  chat: z.exactOptional(chatSchema),
  providers: z.exactOptional(providersSchema(true)),
  mcp_servers: z.exactOptional(mcpServersSchema),
  serve: z.exactOptional(serveSchema),
  store: z.exactOptional(z.strictObject({
    kind: z.enum(["sqlite", "postgres"], {
      error: "must be one of sqlite, postgres",
    }),
    url_env: z.exactOptional(
      str.check(z.regex(/^[A-Za-z_][A-Za-z0-9_]*$/, "must be a variable name")),
    ),
  }, { error: "must be a table" })),
});

/**
 * Schema of the global `config.toml`.
 */
export const globalFileSchema: z.ZodMiniType<GlobalFile> = globalFileInferred;

const projectFileInferred = z.strictObject({
  defaults: z.exactOptional(
    z.strictObject({
      model: z.exactOptional(nonEmpty),
      fs_scope: z.exactOptional(fsScope),
      max_tokens_estimate: z.exactOptional(posInt),
    }, { error: "must be a table" }),
  ),
  variables: z.exactOptional(
    z.record(str, str, { error: "must be a table of strings" }),
  ),
  chat: z.exactOptional(chatSchema),
  providers: z.exactOptional(providersSchema(false)),
  mcp_servers: z.exactOptional(mcpNarrowingsSchema),
});

/**
 * Schema of `workspace.toml` and `project.toml`.
 */
export const projectFileSchema: z.ZodMiniType<ProjectFile> =
  projectFileInferred;

/**
 * Top-level keys only the global file may have (for a clearer message).
 */
export const GLOBAL_ONLY_KEYS: readonly string[] = [
  "preferences",
  "update_channel",
  "catalog",
  "serve",
  "store",
];

/**
 * Top-level keys only project files may have (for a clearer message).
 */
export const PROJECT_ONLY_KEYS: readonly string[] = ["defaults", "variables"];

/**
 * Keys of later features, refused as "not supported in this version"
 * rather than silently ignored.
 */
export const LATER_KEYS: readonly string[] = [];

// Each written-out type equals what its schema infers.
type _priceInferredCheck = Holds<
  Same<z.infer<typeof priceInferred>, ModelPrice>
>;
type _globalFileInferredCheck = Holds<
  Same<z.infer<typeof globalFileInferred>, GlobalFile>
>;
type _projectFileInferredCheck = Holds<
  Same<z.infer<typeof projectFileInferred>, ProjectFile>
>;
