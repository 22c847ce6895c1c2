/**
 * Connects the test server (`_server.ts`) through `openMcpTools`, with
 * the built-in registry as the base, and dispatches calls the way a
 * session does.
 */
import { fileURLToPath } from "node:url";
import {
  createDenoPermissionQuery,
  createDenoToolEffects,
} from "../../../tools/deno/effects.ts";
import { createToolRegistry } from "../../../tools/registry_impl.ts";
import type {
  ToolDispatchContext,
  ToolOutcome,
  TurnPolicy,
} from "../../../tools/registry.ts";
import { baseEnvKeys } from "../../../tools/sandbox/child_env.ts";
import {
  type McpServerEvent,
  type McpToolRegistry,
  openMcpTools,
} from "../../../tools/mcp/registry.ts";
import type { McpServerSpec } from "../../../tools/mcp/spec.ts";
import type { ConnectDeps } from "../../../tools/mcp/connection.ts";

/** The repository root. */
export const ROOT: string = fileURLToPath(
  new URL("../../../", import.meta.url),
);

/** The tool ids of the test server (`_server.ts`), sorted. */
export const SERVER_TOOL_IDS: readonly string[] = [
  "mcp_calc_add",
  "mcp_calc_big",
  "mcp_calc_env",
  "mcp_calc_fail",
  "mcp_calc_grow",
  "mcp_calc_slow",
  "mcp_calc_wipe",
];

/**
 * Runs `fn` with the test server connected over stdio in a fresh
 * workspace; closes both after.
 */
export async function withStdioTools(
  over: Parameters<typeof stdioSpec>[1],
  fn: (tools: McpToolRegistry, dir: string) => Promise<void>,
): Promise<void> {
  const dir = await Deno.realPath(await Deno.makeTempDir());
  try {
    const tools = await openTools(dir, [stdioSpec(dir, over)]);
    try {
      await fn(tools, dir);
    } finally {
      await tools.close();
    }
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
}

/**
 * The `deno` arguments that run the test server over stdio, writing to
 * `dir` (its log `server.log`, and `marker` once spawned).
 */
export function serverArgs(dir: string, marker?: string): string[] {
  return [
    "run",
    "--no-prompt",
    `--config=${ROOT}deno.json`,
    `--allow-write=${dir}`,
    "--allow-env",
    `${ROOT}tests/tools/mcp/_server.ts`,
    "stdio",
    `${dir}/server.log`,
    ...(marker === undefined ? [] : [marker]),
  ];
}

/** A stdio spec that runs the test server with `deno run`. */
export function stdioSpec(
  dir: string,
  over: Partial<McpServerSpec> & { env?: Record<string, string> } = {},
): McpServerSpec {
  const { env, ...rest } = over;
  return {
    id: "calc",
    endpoint: {
      transport: "stdio",
      command: Deno.execPath(),
      args: serverArgs(dir),
      env: env ?? {},
      cwd: dir,
    },
    startupTimeoutMs: 30_000,
    toolTimeoutMs: 30_000,
    ...rest,
  };
}

/** The host's base variables, as the CLI reads them. */
export function baseEnv(): Record<string, string> {
  const out: Record<string, string> = {};
  for (const k of baseEnvKeys("posix")) {
    const v = Deno.env.get(k);
    if (v !== undefined) out[k] = v;
  }
  return out;
}

/** Opens the registry over `servers` in workspace `dir`. */
export async function openTools(
  dir: string,
  servers: McpServerSpec[],
  events: McpServerEvent[] = [],
  seams: Partial<Pick<ConnectDeps, "resolve" | "connectTcp">> = {},
): Promise<McpToolRegistry> {
  return await openMcpTools({
    servers,
    build: (extra) =>
      createToolRegistry({
        tools: extra,
        host: createDenoToolEffects(),
        context: { workingDir: dir, fsScopeTier: "sandboxed" },
        permissions: createDenoPermissionQuery(),
      }),
    connect: {
      baseEnv: baseEnv(),
      posix: Deno.build.os !== "windows",
      resolve: (name) => Deno.resolveDns(name, "A"),
      client: { name: "relavium-test", version: "0.0.0" },
      ...seams,
    },
    onEvent: (e) => events.push(e),
  });
}

/** A policy that approves every governed call. */
export const APPROVE_ALL: TurnPolicy = { decide: () => ({ approve: true }) };

/** Dispatches one call as a session would (nothing granted by `tools:`). */
export function call(
  registry: McpToolRegistry,
  name: string,
  args: unknown,
  options: { signal?: AbortSignal; policy?: TurnPolicy } = {},
): Promise<ToolOutcome> {
  const ctx: ToolDispatchContext = {
    signal: options.signal ?? new AbortController().signal,
    granted: [],
    policy: options.policy ?? APPROVE_ALL,
    interactive: false,
    emitApproval: () => {},
    admit: () => ({ allow: true }),
  };
  return registry.dispatch({ id: "c1", name, args }, ctx);
}
