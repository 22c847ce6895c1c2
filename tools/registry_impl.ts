/**
 * `createToolRegistry`: the production `ToolRegistry` over registered
 * tool definitions, one effect host, the filesystem scope and the Deno
 * permission query.
 *
 * @module
 */
import type { JsonSchema, ToolDef } from "../llm/provider.ts";
import type { GateRequest } from "./approval.ts";
import { type FsScopeConfig, planFsScope } from "./sandbox/fs_scope.ts";
import type { ToolEffects } from "./effects.ts";
import { resolveToolLimits, type ToolLimits } from "./sandbox/limits.ts";
import { type PipelineConfig, runPipeline } from "./pipeline.ts";
import {
  firstMissingPermission,
  type PermissionQuery,
} from "./sandbox/permission_query.ts";
import {
  governedAction,
  isReadOnlyPolicy,
  staticPermissions,
} from "./policy.ts";
import type { ToolDefinition, ToolGuardrails } from "./tool.ts";
import type { ScopedToolRegistry } from "./scoped_registry.ts";
import { runUserCommandPipeline } from "./builtin/user_command.ts";
import { readUserFilePipeline } from "./builtin/user_file.ts";

/**
 * Options of {@linkcode createToolRegistry}.
 */
export interface ToolRegistryOptions {
  /** The wired tools (for example `builtinTools()`), by exact id. */
  tools: readonly ToolDefinition<unknown>[];
  /** The effect host (`createDenoToolEffects()` in production). */
  host: ToolEffects;
  /** Workspace, tier, extra roots and own dirs (absolute, canonical). */
  context: FsScopeConfig;
  /** Deno permission query (`createDenoPermissionQuery()` in production). */
  permissions: PermissionQuery;
  /** Lower limits (never higher than the defaults). */
  limits?: Partial<ToolLimits>;
  /** Config-only values by tool id, e.g. `{ git_status: { args: ["-s"] } }`. */
  toolConfig?: Readonly<Record<string, Readonly<Record<string, unknown>>>>;
  /**
   * Whether a string is a secret: a call whose arguments contain one is
   * refused before anything runs, and secrets never reach displayed input.
   */
  isSecret?: (value: string) => boolean;
  /**
   * The explicit per-call yes of gated tools (`git_commit`), never cached,
   * in every mode; absent ⇒ they are denied.
   */
  gate?: (request: GateRequest) => Promise<boolean>;
  /**
   * Command allowlists and allowed domains (`[chat]` config); absent or
   * empty lists deny every command and every host.
   */
  guardrails?: ToolGuardrails;
}

export type { ScopedToolRegistry };

function validateTools(
  tools: readonly ToolDefinition<unknown>[],
): Map<string, ToolDefinition<unknown>> {
  const byId = new Map<string, ToolDefinition<unknown>>();
  for (const tool of tools) {
    const bad = (why: string): TypeError =>
      new TypeError(`Cannot register tool ${JSON.stringify(tool.id)}: ${why}`);
    if (tool.id === "" || tool.id === "unknown_tool") {
      throw bad("reserved or empty id");
    }
    if (byId.has(tool.id)) throw bad("duplicate id");
    let params: JsonSchema;
    try {
      params = tool.llmParams;
    } catch (e) {
      throw bad(
        `its argument schema has no JSON Schema form (${
          e instanceof Error ? e.message : String(e)
        })`,
      );
    }
    if (params["type"] !== "object") {
      throw bad("its argument schema must be an object");
    }
    const props = params["properties"];
    for (const key of tool.configOnly ?? []) {
      if (typeof props === "object" && props !== null && key in props) {
        throw bad(`config-only key ${key} must not be advertised`);
      }
    }
    const action = governedAction(tool.policy);
    const needsTarget = action === "process" || tool.policy.egress === "http";
    if (needsTarget && tool.policyTarget === undefined) {
      throw bad("a process or http tool needs a policyTarget (its allowlist)");
    }
    if (tool.policy.fsWrite === true && tool.policyTarget === undefined) {
      throw bad("a writing tool needs a policyTarget (its path)");
    }
    byId.set(tool.id, tool);
  }
  return byId;
}

function validateConfig(
  byId: ReadonlyMap<string, ToolDefinition<unknown>>,
  toolConfig: ToolRegistryOptions["toolConfig"],
): Map<string, Readonly<Record<string, unknown>>> {
  const out = new Map<string, Readonly<Record<string, unknown>>>();
  for (const [id, values] of Object.entries(toolConfig ?? {})) {
    const tool = byId.get(id);
    if (tool === undefined) {
      throw new TypeError(
        `Cannot configure tool ${JSON.stringify(id)}: not registered`,
      );
    }
    for (const key of Object.keys(values)) {
      if (!(tool.configOnly ?? []).includes(key)) {
        throw new TypeError(
          `Cannot configure tool ${
            JSON.stringify(id)
          }: ${key} is not a config-only key`,
        );
      }
    }
    out.set(id, { ...values });
  }
  return out;
}

function freezeGuardrails(g: ToolGuardrails): Readonly<ToolGuardrails> {
  const list = (xs: readonly string[] | undefined): readonly string[] =>
    Object.freeze([...(xs ?? [])]);
  for (const d of g.allowedDomains ?? []) {
    if (typeof d !== "string" || d.trim() === "") {
      throw new TypeError("Cannot configure allowed domains: empty entry");
    }
  }
  return Object.freeze({
    allowedCommands: list(g.allowedCommands),
    allowedCommandGlobs: list(g.allowedCommandGlobs),
    allowedDomains: list(g.allowedDomains),
    ...(g.allowLoopbackForTests === true
      ? { allowLoopbackForTests: true }
      : {}),
  });
}

/**
 * Builds the production registry. `advertise(granted, policy)` returns
 * granted ∩ registered ∩ runtime permissions ∩ `policy.advertise`, in
 * registration order; `dispatch` runs the pipeline and
 * never throws.
 *
 * @param options Tools, host, scope, permission query, limits, config.
 * @returns The registry.
 * @throws {TypeError} On a duplicate or reserved id, an advertised
 *   config-only key, a process/http/write tool without `policyTarget`,
 *   configuration for an unknown tool or key, a non-absolute root, or an
 *   empty allowed-domain entry.
 * @throws {RangeError} When a limit is invalid or raises a default.
 *
 * @example The model sees what is granted and what the policy lets through
 * ```ts
 * import { allBuiltinTools, createDenoToolEffects, createToolRegistry } from "@relavium/session/tools";
 * import assert from "node:assert/strict";
 * const registry = createToolRegistry({
 *   tools: allBuiltinTools(),
 *   host: createDenoToolEffects(), // advertise never touches it
 *   context: { workingDir: "/ws", fsScopeTier: "sandboxed" },
 *   permissions: () => "granted",
 * });
 * const names = (policy?: { advertise(id: string): boolean }) =>
 *   registry.advertise(["read_file", "write_file"], policy).map((d) => d.name);
 * assert.deepEqual(names(), ["read_file", "write_file"]);
 * assert.deepEqual(names({ advertise: registry.isReadOnly }), ["read_file"]);
 * ```
 */
export function createToolRegistry(
  options: ToolRegistryOptions,
): ScopedToolRegistry {
  const byId = validateTools(options.tools);
  const plan = planFsScope(options.context, options.host.os);
  const limits = resolveToolLimits(options.limits);
  const config: PipelineConfig = {
    tools: byId,
    host: options.host,
    plan,
    permissions: options.permissions,
    limits,
    toolConfig: validateConfig(byId, options.toolConfig),
    isSecret: options.isSecret,
    gate: options.gate,
    guardrails: freezeGuardrails(options.guardrails ?? {}),
  };
  return {
    plan,
    notices: plan.notices,
    limits: Object.freeze({ ...limits }),
    toolIds: Object.freeze([...byId.keys()]),
    isReadOnly(toolId): boolean {
      const tool = byId.get(toolId);
      return tool !== undefined && isReadOnlyPolicy(tool.policy);
    },
    advertise(granted, policy): ToolDef[] {
      const out: ToolDef[] = [];
      for (const tool of byId.values()) {
        if (!granted.includes(tool.id)) continue;
        const needs = staticPermissions(tool.policy, plan);
        if (firstMissingPermission(options.permissions, needs) !== undefined) {
          continue;
        }
        if (policy?.advertise?.(tool.id) === false) continue;
        out.push({
          name: tool.id,
          description: tool.description,
          parameters: tool.llmParams,
        });
      }
      return out;
    },
    dispatch: (call, ctx) => runPipeline(config, call, ctx),
    runUserCommand: (request, ctx) =>
      runUserCommandPipeline(config, request, ctx),
    readUserFile: (path, signal) => readUserFilePipeline(config, path, signal),
    async withMcpServers(servers, mcp = {}) {
      // The MCP folder (and the SDK) loads only here.
      const { joinMcpServers } = await import("./mcp/library.ts");
      return await joinMcpServers(servers, {
        ...mcp,
        workingDir: options.context.workingDir,
        build: (extra) =>
          createToolRegistry({
            ...options,
            tools: [...options.tools, ...extra],
          }),
      });
    },
  };
}
