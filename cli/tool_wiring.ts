/**
 * The tools of a CLI session: the built-in registry on the Deno host with
 * the session's filesystem scope (DECISIONS.md 29: `project` adds the
 * project root), and the approval-mode policy (tools.md §8).
 *
 * @module
 */
import type { SessionContext } from "../schema/context.ts";
import { err, ok, type Result } from "../schema/result.ts";
import { builtinTools } from "../tools/builtins.ts";
import {
  createDenoPermissionQuery,
  createDenoToolHost,
} from "../tools/deno_host.ts";
import { createModePolicy, type ModeController } from "../tools/modes.ts";
import type { ApprovalDecision, ApprovalRequest } from "../tools/registry.ts";
import {
  createToolRegistry,
  type ScopedToolRegistry,
} from "../tools/registry_impl.ts";
import type { ModeName } from "./args.ts";
import { type CliFault, fault } from "./fault.ts";

/**
 * Where the tools may work.
 *
 * @example Value
 * ```ts
 * import type { ToolScope } from "./tool_wiring.ts";
 * const s: ToolScope = { context: { workingDir: "/w", fsScopeTier: "sandboxed" } };
 * ```
 */
export interface ToolScope {
  /** The session context (`workingDir`, tier). */
  context: SessionContext;
  /** The project root: an extra root under the `project` tier. */
  projectRoot?: string;
  /** The Relavium folder (config, history): on both floors. */
  relaviumDir?: string;
}

/**
 * Builds the built-in tool registry for a session.
 *
 * @param scope Context, project root and own folder.
 * @returns The registry, or an `internal` fault when the scope is invalid
 * (for example a stored, non-absolute working directory).
 *
 * @example Read-only built-ins
 * ```ts
 * import { buildToolRegistry } from "./tool_wiring.ts";
 * import assert from "node:assert/strict";
 * const r = buildToolRegistry({ context: { workingDir: "/tmp", fsScopeTier: "sandboxed" } });
 * assert.ok(r.ok);
 * if (r.ok) assert.deepEqual(r.value.toolIds, ["read_file", "list_directory", "git_status"]);
 * ```
 */
export function buildToolRegistry(
  scope: ToolScope,
): Result<ScopedToolRegistry, CliFault> {
  const { context } = scope;
  try {
    return ok(createToolRegistry({
      tools: builtinTools(),
      host: createDenoToolHost(),
      permissions: createDenoPermissionQuery(),
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

/**
 * Builds the approval-mode controller.
 *
 * @param registry The registry (its read-only test).
 * @param options Starting mode, and the person to ask when interactive.
 * @returns The controller; its `policy` goes to `setTurnPolicy`.
 *
 * @example Non-interactive auto
 * ```ts
 * import { buildToolRegistry, buildModes } from "./tool_wiring.ts";
 * import assert from "node:assert/strict";
 * const r = buildToolRegistry({ context: { workingDir: "/tmp", fsScopeTier: "sandboxed" } });
 * assert.ok(r.ok);
 * if (r.ok) assert.equal(buildModes(r.value, { mode: "auto" }).mode, "auto");
 * ```
 */
export function buildModes(
  registry: ScopedToolRegistry,
  options: {
    mode: ModeName;
    approver?: (request: ApprovalRequest) => Promise<ApprovalDecision>;
  },
): ModeController {
  return createModePolicy({
    mode: options.mode,
    interactive: options.approver !== undefined,
    isReadOnly: (id) => registry.isReadOnly(id),
    ...(options.approver === undefined ? {} : { approver: options.approver }),
  });
}
