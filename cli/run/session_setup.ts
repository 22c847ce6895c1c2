/**
 * Everything a new session needs before it starts: config, agent (file, id or built-in, then
 * `--model`), providers and keys (or a cassette), the session context and
 * the engine deps. Every failure here is a pre-session fault: nothing is
 * written to `history.db`.
 *
 * @module
 */
import { streamLimitsOf } from "../config/resolve.ts";
import { createCatalog } from "../../llm/create_catalog.ts";
import type { Replay } from "../../llm/replay_provider.ts";
import type { Recorder } from "./record.ts";
import { abortableSleep } from "../../host/sleep.ts";
import type { CliSessionDeps } from "./host_options.ts";
import type { Agent } from "../../schema/agent.ts";
import type { SessionContext } from "../../schema/context.ts";
import { err, ok, type Result } from "../../schema/result.ts";
import { resolveSystemPrompt } from "../../session/prompt.ts";
import { resolveAgentRef } from "./agent_file.ts";
import { loadCliConfig, type LoadedConfig } from "../config/config.ts";
import { type CommandEnv, configRequestOf } from "../command_env.ts";
import { contextDeps } from "./window_settings.ts";
import { applyModelOverride, buildDefaultAgent } from "./default_agent.ts";
import { type CliFault, fault } from "../fault.ts";
import { type ProviderWiring, wireProviders } from "./provider_wiring.ts";
import { configuredKeys } from "./keys.ts";
import { rememberFaultSecrets } from "../io/fault_line.ts";
import type { ScopedToolRegistry } from "../../tools/registry_impl.ts";
import type { ToolScope } from "./tool_wiring.ts";
import type { GateHook } from "../../tools/approval.ts";

/**
 * A session ready to open.
 */
export interface PreparedRun {
  /** The loaded configuration. */
  config: LoadedConfig;
  /** The agent to run (after `--model`, minus skipped fallbacks). */
  agent: Agent;
  /** The session context (`workingDir` = effective cwd). */
  context: SessionContext;
  /** Engine capabilities (the caller sets `interactive`). */
  deps: CliSessionDeps;
  /** The tools wired into `deps.tools`; absent when the agent grants none. */
  registry?: ScopedToolRegistry;
  /** The cassette replay under `--fixture`. */
  replay?: Replay;
  /** The `--record` recorder: write its cassette when the command ends. */
  recorder?: Recorder;
  /** Config notices and skipped-fallback warnings, for stderr. */
  notices: string[];
}

/**
 * Agent and flag inputs of {@linkcode prepareNewRun}.
 */
export interface RunRequest {
  /** `--agent` / `agent run <agent>`; absent ⇒ the built-in agent. */
  agent?: string;
  /** `--model`. */
  model?: string;
  /** `--provider` (only with `--model`). */
  provider?: string;
  /** `--fixture`. */
  fixture?: string;
  /** `--record`. */
  record?: string;
  /**
   * An interactive chat: build the tools even when the agent grants none
   * (`@path` and `!cmd` need them).
   */
  userTools?: boolean;
  /** The `git_commit` gate of an interactive TTY (absent ⇒ denied). */
  gate?: GateHook;
}

/**
 * Loads the configuration for a run. From then on a fault line printed on
 * the command's io redacts every key the config names.
 *
 * @param ctx The command context (cwd, env, `--config`).
 * @returns The config, or its fault.
 */
export async function loadRunConfig(
  ctx: CommandEnv,
): Promise<Result<LoadedConfig, CliFault>> {
  const config = await loadCliConfig(configRequestOf(ctx));
  if (config.ok) {
    rememberFaultSecrets(
      ctx.io,
      configuredKeys({
        providers: config.value.resolved.providers,
        env: (n) => ctx.io.env(n),
      }),
    );
  }
  return config;
}

/**
 * Builds the engine deps from the config and the provider wiring.
 *
 * @param config The loaded config.
 * @param wiring Providers and keys.
 * @param registry The session's tools, if any.
 * @param sleep The backoff sleep (absent ⇒ a real, abortable timer).
 * @returns The host's session deps (not interactive), with the
 * context-management settings and the cost cap of the config.
 */
export function buildHostDeps(
  config: LoadedConfig,
  wiring: ProviderWiring,
  registry?: ScopedToolRegistry,
  sleep?: (ms: number, signal: AbortSignal) => Promise<void>,
): CliSessionDeps {
  return {
    resolveProvider: (id) => wiring.resolveProvider(id),
    keyFor: (id) => wiring.keyFor(id),
    sleep: sleep ?? abortableSleep,
    catalog: wiring.catalog ?? createCatalog(),
    interactive: false,
    maxTurns: config.resolved.chat.maxTurns.value,
    secrets: wiring.secrets,
    ...contextDeps(config),
    ...(registry === undefined ? {} : { tools: registry }),
  };
}

/**
 * Resolves the agent of a new session: a file or id, else the built-in
 * chat agent; then `--model`/`--provider`.
 *
 * @param ctx The command context.
 * @param config The loaded config.
 * @param req The agent and model flags.
 * @returns The agent, or a fault.
 */
export async function resolveRunAgent(
  ctx: CommandEnv,
  config: LoadedConfig,
  req: RunRequest,
): Promise<Result<Agent, CliFault>> {
  const { resolved, paths } = config;
  const override = req.model === undefined ? undefined : {
    model: req.model,
    ...(req.provider === undefined ? {} : { provider: req.provider }),
  };
  if (req.agent === undefined) {
    return buildDefaultAgent(resolved.chat, resolved.providers, override);
  }
  const found = await resolveAgentRef(req.agent, {
    cwd: ctx.cwd,
    ...(paths.projectRoot === undefined
      ? {}
      : { projectRoot: paths.projectRoot }),
  });
  if (!found.ok) return found;
  return override === undefined
    ? ok(found.value.agent)
    : applyModelOverride(found.value.agent, override, resolved.providers);
}

/**
 * The `[chat]` guardrails of the tools: `allowed_commands`,
 * `allowed_command_globs` and `allowed_domains` (empty ⇒ deny all).
 *
 * @param config The loaded config.
 * @returns The guardrails for `ToolScope.guardrails`.
 */
export function chatGuardrails(
  config: LoadedConfig,
): NonNullable<ToolScope["guardrails"]> {
  const chat = config.resolved.chat;
  return {
    allowedCommands: chat.allowedCommands.value,
    allowedCommandGlobs: chat.allowedCommandGlobs.value,
    allowedDomains: chat.allowedDomains.value,
  };
}

/**
 * The tool registry of a session whose agent grants tools (or of an
 * interactive chat, `userTools`); `undefined` (and no tool module loaded)
 * otherwise.
 *
 * @param agent The session's agent.
 * @param scope Where the tools may work, guardrails and gate.
 * @param userTools Build it even when the agent grants no tool.
 * @returns The registry or `undefined`, or an `internal` fault.
 */
export async function sessionTools(
  agent: Agent,
  scope: ToolScope,
  userTools = false,
): Promise<Result<ScopedToolRegistry | undefined, CliFault>> {
  if ((agent.tools ?? []).length === 0 && !userTools) return ok(undefined);
  const { buildToolRegistry } = await import("./tool_wiring.ts");
  return buildToolRegistry(scope);
}

/**
 * Prepares a new session: config, agent, system-prompt variables,
 * providers (or cassette), context and deps.
 *
 * @param ctx The command context.
 * @param req The agent, model and fixture flags.
 * @returns The prepared run, or a pre-session fault.
 */
export async function prepareNewRun(
  ctx: CommandEnv,
  req: RunRequest,
): Promise<Result<PreparedRun, CliFault>> {
  const config = await loadRunConfig(ctx);
  if (!config.ok) return config;
  const agent = await resolveRunAgent(ctx, config.value, req);
  if (!agent.ok) return agent;
  const { resolved } = config.value;
  const variables: Record<string, string> = {};
  for (const [k, v] of Object.entries(resolved.variables)) {
    variables[k] = v.value;
  }
  const prompt = resolveSystemPrompt(agent.value.system_prompt, variables);
  if (!prompt.ok) {
    return err(fault(
      "invalid_agent",
      `Invalid agent ${agent.value.id}: system_prompt uses {{ctx.${prompt.error.missing}}} but [variables] has no "${prompt.error.missing}"`,
    ));
  }
  const wiring = await wireProviders(agent.value, {
    providers: resolved.providers,
    env: (n) => ctx.io.env(n),
    cwd: ctx.cwd,
    promptCaching: resolved.chat.promptCaching.value,
    limits: streamLimitsOf(resolved.chat),
    ...(req.fixture === undefined ? {} : { fixture: req.fixture }),
    ...(req.record === undefined ? {} : { record: req.record }),
    ...(ctx.io.fetch === undefined ? {} : { fetch: ctx.io.fetch }),
    ...(ctx.io.resolveDns === undefined
      ? {}
      : { resolveDns: ctx.io.resolveDns }),
  });
  if (!wiring.ok) return wiring;
  const context: SessionContext = {
    workingDir: ctx.cwd,
    fsScopeTier: resolved.chat.fsScope.value,
  };
  if (Object.keys(variables).length > 0) context.variables = variables;
  const { paths } = config.value;
  const registry = await sessionTools(wiring.value.agent, {
    context,
    ...(paths.projectRoot === undefined
      ? {}
      : { projectRoot: paths.projectRoot }),
    ...(paths.relaviumDir === undefined
      ? {}
      : { relaviumDir: paths.relaviumDir }),
    guardrails: chatGuardrails(config.value),
    commandTimeoutMs: config.value.resolved.chat.commandTimeoutMs.value,
    secrets: wiring.value.secrets,
    ...(req.gate === undefined ? {} : { gate: req.gate }),
  }, req.userTools === true);
  if (!registry.ok) return registry;
  return ok({
    config: config.value,
    agent: wiring.value.agent,
    context,
    deps: buildHostDeps(
      config.value,
      wiring.value,
      registry.value,
      ctx.io.sleep,
    ),
    ...(registry.value === undefined ? {} : { registry: registry.value }),
    ...(wiring.value.replay === undefined
      ? {}
      : { replay: wiring.value.replay }),
    ...(wiring.value.recorder === undefined
      ? {}
      : { recorder: wiring.value.recorder }),
    notices: [...resolved.notices, ...wiring.value.warnings],
  });
}
