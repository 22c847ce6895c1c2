/**
 * Tools for an agent session: declare a custom tool once with
 * {@linkcode tool} (a zod input schema and an `execute`), put it in a
 * registry with the built-ins ({@linkcode allBuiltinTools}: `read_file`,
 * `list_directory`, `git_status`, `write_file`, `run_command`,
 * `git_commit`, `http_request`) through {@linkcode createToolRegistry},
 * and hand the registry to the session. Every call goes through one
 * pipeline: exact-name lookup and the grant, a strict parse whose
 * problems go back to the model, the filesystem jail and floors, the
 * command allowlist and the URL checks, approval of governed actions by
 * the turn policy, the Deno permissions, then the effect (only through a
 * `ToolEffects`; {@linkcode createDenoToolEffects} is the Deno one) and a
 * bounded copy of the result for the model.
 *
 * Lower down, {@linkcode defineTool} declares a tool that runs its effects
 * through the jailed host like the built-ins do.
 *
 * @example A custom tool next to the built-ins, gated by approval
 * ```ts
 * import {
 *   allBuiltinTools,
 *   createDenoPermissionQuery,
 *   createDenoToolEffects,
 *   createToolRegistry,
 *   tool,
 *   type ToolDispatchContext,
 * } from "@relavium/session/tools";
 * import { z } from "zod";
 * import assert from "node:assert/strict";
 *
 * const sent: string[] = [];
 * const notify = tool({
 *   name: "notify",
 *   description: "Send a notification to the user's phone",
 *   inputSchema: z.strictObject({ text: z.string().min(1) }),
 *   execute: ({ text }) => {
 *     sent.push(text);
 *     return "sent";
 *   },
 * });
 * const dir = await Deno.realPath(await Deno.makeTempDir());
 * const registry = createToolRegistry({
 *   tools: [...allBuiltinTools(), notify],
 *   host: createDenoToolEffects(),
 *   context: { workingDir: dir, fsScopeTier: "sandboxed" },
 *   permissions: createDenoPermissionQuery(),
 * });
 * const ctx = (answer: "once" | "reject"): ToolDispatchContext => ({
 *   signal: new AbortController().signal,
 *   granted: ["read_file", "notify"],
 *   policy: { confirm: () => Promise.resolve(answer) },
 *   interactive: true,
 *   emitApproval: () => {},
 *   admit: () => ({ allow: true }),
 * });
 * const call = { id: "session-tool:1:0", name: "notify", args: { text: "done" } };
 * assert.equal((await registry.dispatch(call, ctx("reject"))).kind, "fatal");
 * assert.deepEqual(sent, []);
 * assert.equal((await registry.dispatch(call, ctx("once"))).kind, "ok");
 * assert.deepEqual(sent, ["done"]);
 * assert.equal(registry.isReadOnly("notify"), false);
 * await Deno.remove(dir, { recursive: true });
 * ```
 *
 * @module
 */
export { type Tool, tool, type ToolExecuteOptions } from "./custom_tool.ts";
export {
  defineTool,
  type PolicyTarget,
  type ToolDefinition,
  type ToolGuardrails,
  type ToolInputSchema,
  type ToolPolicy,
  type ToolRunContext,
  type ToolRunResult,
} from "./tool.ts";
export type { ToolFailure } from "./failure.ts";
export type {
  DirEntryInfo,
  FileStat,
  HttpRequest,
  HttpResponse,
  SpawnRequest,
  SpawnResult,
  ToolEffects,
} from "./effects.ts";
export type { FsAccess } from "./sandbox/fs_access.ts";
export type { FsScopeConfig, ScopePlan } from "./sandbox/fs_scope.ts";
export type { ToolLimits } from "./sandbox/limits.ts";
export type {
  PermissionQuery,
  ToolPermission,
} from "./sandbox/permission_query.ts";
export {
  createToolRegistry,
  type ScopedToolRegistry,
  type ToolRegistryOptions,
} from "./registry_impl.ts";
export type { GateRequest } from "./approval.ts";
export type { UserFileResult } from "./builtin/user_file.ts";
export { allBuiltinTools } from "./builtin/all.ts";
export type {
  ApprovalRequest,
  EgressDecision,
  ToolCall,
  ToolDispatchContext,
  ToolOutcome,
  ToolRegistry,
  TurnPolicy,
  UserCommandOutcome,
} from "./registry.ts";
export {
  createDenoPermissionQuery,
  createDenoToolEffects,
} from "./deno/effects.ts";

// The types the signatures above refer to, so this entry point documents
// them too.
export type { ToolDef } from "../llm/provider.ts";
export type { FsScopeTier, SessionContext } from "../schema/context.ts";
export type { McpServer } from "../schema/agent.ts";
export type {
  CompactionReason,
  ErrorCode,
  GovernedAction,
  SessionError,
  SessionEventDraft,
  TokensUsed,
  ToolHistoryEntry,
  TurnStopReason,
} from "../schema/event.ts";
export type { ValidationIssue } from "../schema/issues.ts";
export type {
  MediaHandle,
  SessionToolCallPart,
  SessionToolMedia,
  SessionToolResultPart,
  ToolResultOutcome,
} from "../schema/message.ts";
export type { Result } from "../schema/result.ts";
