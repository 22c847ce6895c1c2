/**
 * The dispatch pipeline, step for step; nothing touches the
 * host before the runtime permission check (step 6):
 *
 * 0. provider-executed ⇒ deny; 1. exact-name lookup ⇒ else `unknown_tool`
 * feedback, then the grant; 2. effective args (config-only merged last;
 * the model may not send config-only keys); 3. strict parse and the
 * secret-taint check ⇒ `invalid_args` feedback; 4. guardrails (lexical
 * jail and floors on the policy target, the command allowlist, the URL
 * and domain checks, the gate); 5. approval of governed
 * actions (no turn policy is `ask` with no approver: every governed
 * action is refused `no_approval_hook`; a person is shown a write's
 * target as it resolves: metadata reads under a granted read permission,
 * only when someone is asked);
 * 6. Deno permissions; 7. `ctx.admit()`, then the host effect
 * under the abort signal; 8. bounding of the model copy.
 *
 * A failure where no effect started (a path outside the scope, a missing
 * file or parent folder, a size limit, an unknown tool, bad arguments)
 * goes back to the model as an error result, in every session; a denial
 * and a failure after a governed effect started end the turn.
 *
 * A missing Deno permission (`prompt` or `denied`) is a fatal
 * `tool_unavailable` whose message names the flag to add and nothing else:
 * `Tool unavailable: read_file needs the Deno permission --allow-read=/ws`.
 * The path in it is always a configured or canonical scope root, never
 * the requested or resolved target.
 *
 * @module
 */
import type { ValidationIssue } from "../schema/issues.ts";
import { err, ok, type Result } from "../schema/result.ts";
import { raceAbort } from "./_abort.ts";
import { watchEffects } from "./_effect_watch.ts";
import {
  approveGoverned,
  type GateHook,
  passGate,
  resolveApprovalPath,
} from "./approval.ts";
import { boundModelText, resultText, screenResultText } from "./bound.ts";
import { createFsAccess, hostFailure } from "./sandbox/fs_access.ts";
import {
  checkLexicalPath,
  type LexicalTarget,
  type ScopePlan,
} from "./sandbox/fs_scope.ts";
import { checkGuardrails } from "./guardrails.ts";
import type { ToolEffects } from "./effects.ts";
import type { ToolLimits } from "./sandbox/limits.ts";
import {
  cancelledOutcome,
  deniedOutcome,
  failureOutcome,
  fatalOutcome,
  invalidArgsOutcome,
  okOutcome,
  type OutcomeBase,
  unknownToolOutcome,
} from "./outcomes.ts";
import {
  firstMissingPermission,
  permissionFlag,
  type PermissionQuery,
} from "./sandbox/permission_query.ts";
import { governedAction, staticPermissions } from "./policy.ts";
import type { ToolCall, ToolDispatchContext, ToolOutcome } from "./registry.ts";
import { containsSecret, displayInput, type SecretTest } from "./sanitize.ts";
import type { ToolDefinition, ToolGuardrails, ToolRunResult } from "./tool.ts";

/** Everything the pipeline needs, fixed at registry creation. */
export interface PipelineConfig {
  /** Registered tools by exact id. */
  tools: ReadonlyMap<string, ToolDefinition<unknown>>;
  /** The effect host. */
  host: ToolEffects;
  /** The filesystem scope. */
  plan: ScopePlan;
  /** Deno permission query. */
  permissions: PermissionQuery;
  /** Effective limits. */
  limits: ToolLimits;
  /** Config-only values by tool id. */
  toolConfig: ReadonlyMap<string, Readonly<Record<string, unknown>>>;
  /** The host's secret test. */
  isSecret: SecretTest | undefined;
  /** The gate of gated tools. */
  gate: GateHook | undefined;
  /** Command allowlists and egress configuration. */
  guardrails: Readonly<ToolGuardrails>;
}

function effectiveArgs(
  tool: ToolDefinition<unknown>,
  raw: unknown,
  config: Readonly<Record<string, unknown>> | undefined,
): Result<Record<string, unknown>, ValidationIssue[]> {
  if (typeof raw !== "object" || raw === null || Array.isArray(raw)) {
    return err([{ path: "", message: "arguments must be a JSON object" }]);
  }
  const configOnly = new Set(tool.configOnly ?? []);
  const sent = Object.keys(raw).filter((k) => configOnly.has(k));
  if (sent.length > 0) {
    return err(sent.map((path) => ({ path, message: "unknown key" })));
  }
  return ok({ ...raw, ...config });
}

/**
 * Runs one call through the whole pipeline. Never throws: an unexpected
 * error becomes a fatal `internal` outcome (or `cancelled` after abort).
 *
 * @param config The registry's fixed configuration.
 * @param call The model-issued call.
 * @param ctx The engine's dispatch context.
 * @returns The outcome.
 */
export async function runPipeline(
  config: PipelineConfig,
  call: ToolCall,
  ctx: ToolDispatchContext,
): Promise<ToolOutcome> {
  const tool = config.tools.get(call.name);
  const base: OutcomeBase = {
    toolId: tool?.id ?? "unknown_tool",
    displayInput: displayInput(call.args, {
      configOnly: tool?.configOnly ?? [],
      ...(config.isSecret === undefined ? {} : { isSecret: config.isSecret }),
    }),
  };
  try {
    return await steps(config, call, ctx, tool, base);
  } catch {
    return ctx.signal.aborted
      ? cancelledOutcome(base)
      : fatalOutcome(base, "internal", "Tool dispatch failed unexpectedly");
  }
}

async function steps(
  config: PipelineConfig,
  call: ToolCall,
  ctx: ToolDispatchContext,
  tool: ToolDefinition<unknown> | undefined,
  base: OutcomeBase,
): Promise<ToolOutcome> {
  // 0–1
  if (call.providerExecuted === true) {
    return deniedOutcome(
      base,
      "provider_executed",
      "provider-executed calls are not dispatched",
    );
  }
  if (tool === undefined) {
    return unknownToolOutcome(base.displayInput, call.name);
  }
  if (!ctx.granted.includes(tool.id)) {
    return deniedOutcome(
      base,
      "not_granted",
      `${tool.id} is not granted to this session`,
    );
  }
  if (ctx.signal.aborted) return cancelledOutcome(base);
  // 2–3
  const effective = effectiveArgs(
    tool,
    call.args,
    config.toolConfig.get(tool.id),
  );
  if (!effective.ok) return invalidArgsOutcome(base, effective.error);
  const parsed = tool.parse(effective.value);
  if (!parsed.ok) return invalidArgsOutcome(base, parsed.error);
  if (
    config.isSecret !== undefined &&
    containsSecret(effective.value, config.isSecret)
  ) {
    return invalidArgsOutcome(base, [{
      path: "",
      message:
        "a value holds an API key or a string shaped like one; keys never enter tool arguments",
    }]);
  }
  const shown: OutcomeBase = {
    toolId: tool.id,
    displayInput: displayInput(effective.value, {
      configOnly: tool.configOnly ?? [],
      ...(config.isSecret === undefined ? {} : { isSecret: config.isSecret }),
    }),
  };
  const action = governedAction(tool.policy);
  const governed = action !== undefined || tool.policy.requiresGateApproval;
  // 4: guardrails
  const target = tool.policyTarget?.(parsed.value) ?? {};
  let protectedPath = false;
  let lexicalTarget: LexicalTarget | undefined;
  if (tool.policy.fsScoped && target.path !== undefined) {
    const intent = tool.policy.fsWrite === true ? "write" : "read";
    const lexical = checkLexicalPath(config.plan, target.path, intent);
    if (!lexical.ok) {
      return failureOutcome(shown, lexical.error, { effectStarted: false });
    }
    protectedPath = lexical.value.protectedPath;
    lexicalTarget = lexical.value;
  }
  if (protectedPath && ctx.policy === undefined) {
    return fatalOutcome(
      shown,
      "tool_denied",
      "Tool call denied: path is on the protected-write floor",
    );
  }
  const refusal = checkGuardrails(tool.policy, target, config.guardrails);
  if (refusal !== undefined) {
    return deniedOutcome(shown, refusal.reason, refusal.message);
  }
  if (tool.policy.requiresGateApproval) {
    const gated = await passGate({ base: shown, gate: config.gate, ctx });
    if (gated !== undefined) return gated;
  }
  // 5: approval (the policy's verdict still applies to a gated call, but
  // a person who just passed it through its gate is not asked twice)
  if (action !== undefined) {
    const lexical = lexicalTarget;
    const denied = await approveGoverned({
      base: shown,
      action,
      target,
      protectedPath,
      policy: ctx.policy,
      ctx,
      ...(tool.policy.requiresGateApproval ? { gated: true } : {}),
      ...(action !== "fs_write" || lexical === undefined ? {} : {
        resolve: () =>
          resolveApprovalPath(lexical, { ...config, signal: ctx.signal }),
      }),
    });
    if (denied !== undefined) return denied;
  }
  // 6: Deno permissions (prompt counts as missing; never requested)
  const missing = firstMissingPermission(
    config.permissions,
    staticPermissions(tool.policy, config.plan),
  );
  if (missing !== undefined) {
    return fatalOutcome(
      shown,
      "tool_unavailable",
      `Tool unavailable: ${tool.id} needs the Deno permission ${
        permissionFlag(missing)
      }`,
    );
  }
  // 7: admit, then the effect
  if (ctx.signal.aborted) return cancelledOutcome(shown);
  const admission = ctx.admit();
  if (!admission.allow) {
    return fatalOutcome(shown, admission.error.code, admission.error.message);
  }
  const watched = watchEffects(config.host);
  const result = await runTool(
    { ...config, host: watched.host },
    tool,
    parsed.value,
    ctx,
  );
  if (result === "aborted" || ctx.signal.aborted) {
    return cancelledOutcome(shown);
  }
  if (!result.ok) {
    // A governed tool's effect may have partly happened once it went
    // through the host; an `os` tool (a custom tool) and an MCP tool act
    // outside it, so any failure of one may follow an effect.
    const outside = action === "os" || tool.policy.egress === "mcp";
    const effectStarted = governed && (watched.started || outside);
    return failureOutcome(shown, result.error, { effectStarted });
  }
  // 8: screen secrets out of the model copy, then bound it
  const screened = screenResultText(resultText(result.value), config.isSecret);
  const bounded = boundModelText(screened, {
    maxBytes: config.limits.resultBytes,
    maxLines: config.limits.resultLines,
  });
  return okOutcome(shown, bounded.text, result.summary ?? bounded.text);
}

/**
 * Step 7's effect: runs a parsed call through the tool's `dispatch` with
 * jailed fs access, under the abort signal. Host throws become failures.
 */
export async function runTool(
  config: PipelineConfig,
  tool: ToolDefinition<unknown>,
  args: unknown,
  ctx: { signal: AbortSignal },
): Promise<ToolRunResult | "aborted"> {
  const { host, plan, permissions } = config;
  const workingDir = plan.roots[0] ?? "";
  try {
    const raced = await raceAbort(
      Promise.resolve().then(() =>
        tool.dispatch(args, host, {
          signal: ctx.signal,
          fs: createFsAccess(plan, {
            host,
            permissions,
            signal: ctx.signal,
          }),
          limits: config.limits,
          workingDir,
          permissions,
          guardrails: config.guardrails,
        })
      ),
      ctx.signal,
    );
    return raced.aborted ? "aborted" : raced.value;
  } catch (e) {
    if (ctx.signal.aborted) return "aborted";
    return { ok: false, error: hostFailure(e) };
  }
}
