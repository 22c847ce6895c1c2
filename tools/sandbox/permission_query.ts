/**
 * The Deno permission layer's query seam: the pipeline asks
 * an injected {@linkcode PermissionQuery} (in production,
 * `Deno.permissions.querySync`) and never calls `request`.
 *
 * @module
 */

/**
 * One Deno permission descriptor the tools may need.
 */
export type ToolPermission =
  | { name: "read"; path: string }
  | { name: "write"; path: string }
  | { name: "run"; command: string }
  | { name: "net"; host: string }
  | { name: "env"; variable: string };

/**
 * Reports a permission's state without ever prompting.
 */
export type PermissionQuery = (
  permission: ToolPermission,
) => "granted" | "denied" | "prompt";

/** A permission's state; `prompt` counts as not granted. */
export type PermissionState = ReturnType<PermissionQuery>;

/**
 * The `deno run` flag that grants one descriptor.
 *
 * @param permission The descriptor.
 * @returns For example `--allow-read=/ws` or `--allow-run=git`.
 */
export function permissionFlag(permission: ToolPermission): string {
  switch (permission.name) {
    case "read":
    case "write":
      return `--allow-${permission.name}=${permission.path}`;
    case "run":
      return `--allow-run=${permission.command}`;
    case "net":
      return `--allow-net=${permission.host}`;
    case "env":
      return `--allow-env=${permission.variable}`;
    default: {
      const never: never = permission;
      return never;
    }
  }
}

/**
 * The first descriptor that is not `granted`, if any.
 *
 * @param query The permission query.
 * @param permissions Descriptors to check, in order.
 * @returns The first missing one, or `undefined` when all are granted.
 */
export function firstMissingPermission(
  query: PermissionQuery,
  permissions: readonly ToolPermission[],
): ToolPermission | undefined {
  return permissions.find((p) => query(p) !== "granted");
}
