/**
 * The tool seam and its production implementation: the dispatch pipeline
 * of tools.md §1, the built-ins (`read_file`, `list_directory`,
 * `git_status`, `write_file`, `run_command`, `git_commit`,
 * `http_request`), the filesystem jail and floors, the command allowlist,
 * the SSRF primitive, chat modes, and the Deno permission layer. Effects
 * go through a `ToolEffects`; the Deno host and permission query are the
 * only parts that touch `Deno.*`.
 *
 * A CLI wires the whole catalog with `allBuiltinTools()`, the `[chat]`
 * lists as `guardrails` (`allowedCommands`, `allowedCommandGlobs`,
 * `allowedDomains`; empty ⇒ deny all), the `git_commit` `gate`, and the
 * config-only `run_command` values as `toolConfig`.
 *
 * @example Wire a registry and a mode policy
 * ```ts
 * import {
 *   builtinTools,
 *   createDenoPermissionQuery,
 *   createDenoToolEffects,
 *   createModePolicy,
 *   createToolRegistry,
 * } from "@relavium/session/tools";
 * import assert from "node:assert/strict";
 *
 * const dir = await Deno.realPath(await Deno.makeTempDir());
 * await Deno.writeTextFile(`${dir}/notes.txt`, "remember the milk");
 * const registry = createToolRegistry({
 *   tools: builtinTools(),
 *   host: createDenoToolEffects(),
 *   context: { workingDir: dir, fsScopeTier: "sandboxed" },
 *   permissions: createDenoPermissionQuery(),
 * });
 * const modes = createModePolicy({ mode: "ask", interactive: false, isReadOnly: registry.isReadOnly });
 * const outcome = await registry.dispatch(
 *   { id: "session-tool:1:0", name: "read_file", args: { path: "notes.txt" } },
 *   {
 *     signal: new AbortController().signal,
 *     granted: ["read_file"],
 *     policy: modes.policy,
 *     interactive: false,
 *     emitApproval: () => {},
 *     admit: () => ({ allow: true }),
 *   },
 * );
 * assert.equal(outcome.kind, "ok");
 * if (outcome.kind === "ok") assert.match(outcome.modelResult, /remember the milk/);
 * await Deno.remove(dir, { recursive: true });
 * ```
 *
 * @module
 */
export * from "./registry.ts";
export type { JsonSchema, ToolDef } from "../llm/provider.ts";
export type {
  ErrorCode,
  GovernedAction,
  SessionError,
} from "../schema/event.ts";
export type { FsScopeTier } from "../schema/context.ts";
export type { ValidationIssue } from "../schema/issues.ts";
export type { Result } from "../schema/result.ts";

export type {
  PolicyTarget,
  ToolDefinition,
  ToolPolicy,
  ToolRunContext,
  ToolRunResult,
} from "./tool.ts";
export type { RefusalReason, ToolFailure } from "./failure.ts";
export {
  type DirEntryInfo,
  type EffectErrorKind,
  type FileStat,
  type HttpRequest,
  type HttpResponse,
  type SpawnRequest,
  type SpawnResult,
  type ToolEffects,
  ToolEffectsError,
} from "./effects.ts";
export {
  createDenoPermissionQuery,
  createDenoResolver,
  createDenoToolEffects,
  type DenoToolEffectsOptions,
} from "./deno/effects.ts";
export {
  DEFAULT_TOOL_LIMITS,
  resolveToolLimits,
  type ToolLimits,
} from "./sandbox/limits.ts";
export {
  createToolRegistry,
  type ScopedToolRegistry,
  type ToolRegistryOptions,
} from "./registry_impl.ts";
export type { GateHook, GateRequest } from "./approval.ts";
export type { UserFileResult } from "./builtin/user_file.ts";
export {
  checkLexicalPath,
  type FsScopeConfig,
  type LexicalTarget,
  planFsScope,
  type ScopePlan,
} from "./sandbox/fs_scope.ts";
export {
  createFsAccess,
  type FsAccess,
  type ResolvedPath,
} from "./sandbox/fs_access.ts";
export {
  type FloorOptions,
  foldName,
  isProtectedPath,
  isSensitivePath,
} from "./sandbox/floors.ts";
export { hasGlobSyntax, matchPathGlob, matchWildcard } from "./sandbox/glob.ts";
export {
  boundModelText,
  type BoundOptions,
  resultText,
  summarizeText,
} from "./bound.ts";
export { containsSecret, displayInput, type SecretTest } from "./sanitize.ts";
export {
  governedAction,
  isReadOnlyPolicy,
  staticPermissions,
} from "./policy.ts";
export {
  firstMissingPermission,
  permissionFlag,
  type PermissionQuery,
  type PermissionState,
  type ToolPermission,
} from "./sandbox/permission_query.ts";
export {
  allowlistWarnings,
  broadGrantWarnings,
  derivePermissions,
  permissionFlags,
  type PermissionPlanInput,
} from "./sandbox/permissions.ts";
export { parseResolvConf } from "./sandbox/resolv_conf.ts";
export {
  checkGuardrails,
  type GuardrailRefusal,
  type ToolGuardrails,
} from "./guardrails.ts";
export {
  type CommandAllowlist,
  commandLine,
  isCommandAllowed,
} from "./sandbox/command_allowlist.ts";
export {
  type CanonicalHost,
  canonicalHost,
  type CheckedUrl,
  checkPublicUrl,
  checkResolvedAddresses,
  checkUrl,
  isBlockedAddress,
  isBlockedHostName,
  SSRF_DENY_NET,
  type SsrfOptions,
  type SsrfRefusal,
} from "./sandbox/ssrf.ts";
export { scrubRequestHeaders } from "./builtin/http_headers.ts";
export {
  absolutePathEntries,
  baseEnvKeys,
  childEnv,
  isRefusedEnvKey,
} from "./sandbox/child_env.ts";
export {
  CHAT_MODES,
  type ChatMode,
  createModePolicy,
  type ModeController,
  type ModePolicyOptions,
} from "./modes.ts";
export { allBuiltinTools, builtinTools } from "./builtin/all.ts";
export {
  type ReadFileArgs,
  type ReadFileResult,
  readFileTool,
} from "./builtin/read_file.ts";
export {
  type DirectoryEntry,
  type ListDirectoryArgs,
  type ListDirectoryResult,
  listDirectoryTool,
} from "./builtin/list_directory.ts";
export {
  type GitStatusArgs,
  gitStatusTool,
  type ProcessResult,
} from "./builtin/git_status.ts";
export {
  type WriteFileArgs,
  type WriteFileResult,
  writeFileTool,
} from "./builtin/write_file.ts";
export { type RunCommandArgs, runCommandTool } from "./builtin/run_command.ts";
export {
  type GitCommitArgs,
  gitCommitArgv,
  gitCommitTool,
} from "./builtin/git_commit.ts";
export {
  type HttpRequestArgs,
  type HttpRequestResult,
  httpRequestTool,
} from "./builtin/http_request.ts";
