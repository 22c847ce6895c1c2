/**
 * The loaded config files and where a resolved value came from.
 *
 * @module
 */
import type { LoadedFile } from "./load.ts";

/**
 * Where a value came from.
 */
export type ConfigSource =
  | "built-in"
  | "global"
  | "workspace"
  | "project"
  | "inferred"
  | "env";

/**
 * The loaded files, any of which may be absent.
 */
export interface ConfigLayers {
  global?: LoadedFile & { kind: "global" };
  /** `workspace.toml` (its `kind` is `"workspace"`). */
  workspace?: LoadedFile & { kind: "workspace" | "project" };
  /** `project.toml` (its `kind` is `"project"`). */
  project?: LoadedFile & { kind: "workspace" | "project" };
}
