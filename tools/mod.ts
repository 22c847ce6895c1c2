/**
 * The tool seam and (as they land) the pipeline, built-in tools, the
 * filesystem jail and the Deno permission layer.
 *
 * @example A registry with no tools
 * ```ts
 * import type { ToolRegistry } from "@relavium/session/tools";
 * const none: ToolRegistry = {
 *   advertise: () => [],
 *   dispatch: () => Promise.reject(new Error("no tools")),
 * };
 * ```
 *
 * @module
 */
export * from "./registry.ts";
