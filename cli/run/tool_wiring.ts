/**
 * The tools of a CLI session: every built-in (`allBuiltinTools()`) on the
 * Deno host with the session's filesystem scope (
 * `project` adds the project root), the `[chat]` allowlists and allowed
 * domains as guardrails (empty ⇒ deny all), and the `git_commit` gate of
 * an interactive TTY. Registering is not granting: the agent's `tools:`
 * and the mode decide what the model may call. Imported lazily, only when
 * the session needs tools; the approval modes are in `modes.ts`.
 *
 * @module
 */
import type { SessionContext } from "../../schema/context.ts";
import { err, ok, type Result } from "../../schema/result.ts";
import type { GateHook } from "../../tools/approval.ts";
import { allBuiltinTools } from "../../tools/builtin/all.ts";
import type { ToolDefinition, ToolGuardrails } from "../../tools/tool.ts";
import {
  createDenoPermissionQuery,
  createDenoToolEffects,
} from "../../tools/deno/effects.ts";
import {
  createToolRegistry,
  type ScopedToolRegistry,
} from "../../tools/registry_impl.ts";
import { createSecretScreen } from "../../host/secrets.ts";
import { type CliFault, fault } from "../fault.ts";

/**
 * Where the tools may work.
 */
export interface ToolScope {
  /** The session context (`workingDir`, tier). */
  context: SessionContext;
  /** The project root: an extra root under the `project` tier. */
  projectRoot?: string;
  /** The Relavium folder (config, history): on both floors. */
  relaviumDir?: string;
  /**
   * `[chat]` `allowed_commands`, `allowed_command_globs` and
   * `allowed_domains`; absent or empty lists deny every command and host.
   */
  guardrails?: Pick<
    ToolGuardrails,
    "allowedCommands" | "allowedCommandGlobs" | "allowedDomains"
  >;
  /** The `git_commit` gate (interactive TTY only); absent ⇒ denied. */
  gate?: GateHook;
  /**
   * `[chat]` `command_timeout_ms`: the `run_command` (and `!`) timeout;
   * absent ⇒ the tool's default (30 s).
   */
  commandTimeoutMs?: number;
  /**
   * Every configured key: a tool call carrying one, or a string shaped
   * like a provider key, is refused; absent ⇒ only the shapes.
   */
  secrets?: readonly string[];
  /** Tools beside the built-ins (the MCP servers' tools). */
  extraTools?: readonly ToolDefinition<unknown>[];
}

/**
 * Builds the built-in tool registry for a session.
 *
 * @param scope Context, project root and own folder.
 * @returns The registry, or an `internal` fault when the scope is invalid
 * (for example a stored, non-absolute working directory).
 */
export function buildToolRegistry(
  scope: ToolScope,
): Result<ScopedToolRegistry, CliFault> {
  const { context } = scope;
  try {
    const g = scope.guardrails ?? {};
    return ok(createToolRegistry({
      tools: [...allBuiltinTools(), ...(scope.extraTools ?? [])],
      host: createDenoToolEffects(),
      permissions: createDenoPermissionQuery(),
      isSecret: createSecretScreen(scope.secrets ?? []).isSecret,
      guardrails: {
        allowedCommands: g.allowedCommands ?? [],
        allowedCommandGlobs: g.allowedCommandGlobs ?? [],
        allowedDomains: g.allowedDomains ?? [],
      },
      ...(scope.gate === undefined ? {} : { gate: scope.gate }),
      ...(scope.commandTimeoutMs === undefined ? {} : {
        toolConfig: { run_command: { timeoutMs: scope.commandTimeoutMs } },
      }),
      context: {
        workingDir: context.workingDir,
        fsScopeTier: context.fsScopeTier,
        ...(context.fsScopeTier !== "sandboxed" &&
            scope.projectRoot !== undefined
          ? { extraRoots: [scope.projectRoot] }
          : {}),
        ...(scope.relaviumDir === undefined
          ? {}
          : { ownDirs: [scope.relaviumDir] }),
      },
    }));
  } catch (e) {
    const why = e instanceof Error ? e.message : "unknown error";
    return err(fault("internal", `Cannot set up the tools: ${why}`));
  }
}
