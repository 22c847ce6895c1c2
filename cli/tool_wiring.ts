/**
 * The tools of a CLI session: the built-in registry on the Deno host with
 * the session's filesystem scope (DECISIONS.md 29: `project` adds the
 * project root). Imported lazily, only when the agent grants a tool; the
 * approval modes are in `modes.ts`.
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
import {
  createToolRegistry,
  type ScopedToolRegistry,
} from "../tools/registry_impl.ts";
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
