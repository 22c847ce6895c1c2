/**
 * Loads the CLI's configuration: finds the files (global, or `--config`;
 * the project's `workspace.toml` then `project.toml`), validates each
 * strictly, narrows the project files the user has not trusted and
 * resolves them with their sources.
 *
 * @module
 */
import { join, resolve } from "../../schema/paths.ts";
import { err, ok, type Result } from "../../schema/result.ts";
import { findProjectRoot } from "./discover.ts";
import type { ConfigLayers, ResolvedConfig } from "./resolve.ts";
import { type CliFault, fault } from "../fault.ts";
import { resolveHome } from "./home.ts";
import type { UntrustedFile } from "./apply_trust.ts";

/**
 * Where everything is.
 */
export interface ConfigPaths {
  /** The effective working directory. */
  cwd: string;
  /** `$HOME`, when known. */
  userHome?: string;
  /** `RELAVIUM_HOME` or `~/.relavium`, when known. */
  relaviumDir?: string;
  /** The global config file (`--config` replaces it). */
  globalFile?: string;
  /** Whether `globalFile` came from `--config`. */
  globalFromFlag: boolean;
  /** The project root, when one was found. */
  projectRoot?: string;
  /** `<root>/.relavium/workspace.toml`. */
  workspaceFile?: string;
  /** `<root>/.relavium/project.toml`. */
  projectFile?: string;
  /** `<relaviumDir>/history.db`. */
  historyDb?: string;
}

/**
 * Inputs of {@linkcode locateConfig} and {@linkcode loadCliConfig}.
 */
export interface ConfigRequest {
  /** The effective working directory (absolute). */
  cwd: string;
  /** Reads environment variables. */
  env(name: string): string | undefined;
  /** `--config <path>`, relative to `cwd`. */
  configFlag?: string;
}

/**
 * Finds the config files without reading them.
 *
 * @param req The cwd, environment and `--config`.
 * @returns The paths, or a fault (relative `RELAVIUM_HOME`).
 */
export async function locateConfig(
  req: ConfigRequest,
): Promise<Result<ConfigPaths, CliFault>> {
  const home = resolveHome(req.env);
  if (!home.ok) return home;
  const { userHome, relaviumDir } = home.value;
  const paths: ConfigPaths = { cwd: req.cwd, globalFromFlag: false };
  if (userHome !== undefined) paths.userHome = userHome;
  if (relaviumDir !== undefined) {
    paths.relaviumDir = relaviumDir;
    paths.globalFile = join(relaviumDir, "config.toml");
    paths.historyDb = join(relaviumDir, "history.db");
  }
  if (req.configFlag !== undefined) {
    paths.globalFile = resolve(req.cwd, req.configFlag);
    paths.globalFromFlag = true;
  }
  const root = await findProjectRoot(req.cwd, {
    ...(userHome === undefined ? {} : { userHome }),
    ...(relaviumDir === undefined ? {} : { globalDir: relaviumDir }),
  });
  if (root !== undefined) {
    paths.projectRoot = root;
    paths.workspaceFile = join(root, ".relavium", "workspace.toml");
    paths.projectFile = join(root, ".relavium", "project.toml");
  }
  return ok(paths);
}

/**
 * The loaded configuration.
 */
export interface LoadedConfig {
  paths: ConfigPaths;
  /** The layers as they apply (untrusted project files narrowed). */
  layers: ConfigLayers;
  resolved: ResolvedConfig;
  /** Project files the user has not trusted, and the keys they lost. */
  untrusted: UntrustedFile[];
  /** One notice per untrusted file that lost keys (also in `resolved`). */
  trustNotices: string[];
}

/**
 * Locates, reads, validates and resolves the configuration.
 *
 * @param req The cwd, environment and `--config`.
 * @returns The config, or a fault: `invalid_config` (naming file, line and
 * key), `not_found` (a `--config` file that does not exist) or `internal`.
 */
export async function loadCliConfig(
  req: ConfigRequest,
): Promise<Result<LoadedConfig, CliFault>> {
  const located = await locateConfig(req);
  if (!located.ok) return located;
  const paths = located.value;
  // Reading and resolving load on use: a command that only locates the
  // files (the session store's path) loads neither.
  const [{ loadConfigFile }, { resolveConfig }] = await Promise.all([
    import("./read.ts"),
    import("./resolve.ts"),
  ]);
  const layers: ConfigLayers = {};
  if (paths.globalFile !== undefined) {
    const g = await loadConfigFile("global", paths.globalFile);
    if (!g.ok) return g;
    if (g.value === undefined && paths.globalFromFlag) {
      return err(
        fault("not_found", `Config file not found: ${paths.globalFile}`),
      );
    }
    if (g.value !== undefined && g.value.kind === "global") {
      layers.global = g.value;
    }
  }
  if (paths.workspaceFile !== undefined) {
    const w = await loadConfigFile("workspace", paths.workspaceFile);
    if (!w.ok) return w;
    if (w.value !== undefined && w.value.kind !== "global") {
      layers.workspace = w.value;
    }
  }
  if (paths.projectFile !== undefined) {
    const p = await loadConfigFile("project", paths.projectFile);
    if (!p.ok) return p;
    if (p.value !== undefined && p.value.kind !== "global") {
      layers.project = p.value;
    }
  }
  // The trust and allowlist checks load only when a config file exists.
  const trusted = Object.keys(layers).length === 0
    ? ok({ layers, untrusted: [], notices: [] })
    : await (await import("./apply_trust.ts")).applyTrust(
      layers,
      paths.relaviumDir,
      req.env,
    );
  if (!trusted.ok) return trusted;
  const resolved = await resolveConfig(trusted.value.layers, req.env);
  if (!resolved.ok) return resolved;
  resolved.value.notices.unshift(...trusted.value.notices);
  return ok({
    paths,
    layers: trusted.value.layers,
    resolved: resolved.value,
    untrusted: trusted.value.untrusted,
    trustNotices: trusted.value.notices,
  });
}
