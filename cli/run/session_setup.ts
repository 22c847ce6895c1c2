/**
 * Everything a new session needs before it starts: config, agent (file, id or built-in, then
 * `--model`), providers and keys (or a cassette), the session context and
 * the engine deps. Every failure here is a pre-session fault: nothing is
 * written to `history.db`.
 *
 * @module
 */
import { streamLimitsOf } from "../config/resolve.ts";
import type { HostOptions, PersistedSession } from "../../host/host.ts";
import { denoRuntime } from "../../host/runtime.ts";
import type { Agent } from "../../schema/agent.ts";
import type { SessionContext } from "../../schema/context.ts";
import { err, ok, type Result } from "../../schema/result.ts";
import { resolveSystemPrompt } from "../../session/prompt.ts";
import { resolveAgentRef } from "./agent_file.ts";
import { loadCliConfig, type LoadedConfig } from "../config/config.ts";
import { type CommandEnv, configRequestOf } from "../command_env.ts";
import { applyModelOverride, buildDefaultAgent } from "./default_agent.ts";
import { type CliFault, fault } from "../fault.ts";
import { type ProviderWiring, wireProviders } from "./provider_wiring.ts";
import { registryOf } from "./keys.ts";
import { rememberFaultSecrets } from "../io/fault_line.ts";
import type { CliIo } from "../io/io.ts";
import type { SessionSettings } from "../../session/deps.ts";
import type { ScopedToolRegistry } from "../../tools/registry_impl.ts";
import type { GateHook } from "../../tools/approval.ts";

/**
 * A session ready to open: its agent, context, providers and tools.
 */
export interface PreparedRun {
  /** The loaded configuration. */
  config: LoadedConfig;
  /** The agent to run (after `--model`). */
  agent: Agent;
  /** The session context (`workingDir` = effective cwd). */
  context: SessionContext;
  /** Providers, keys, cassette or recorder. */
  wiring: ProviderWiring;
  /** The session's tools; absent when the agent grants none. */
  registry?: ScopedToolRegistry;
  /** Config notices and skipped-fallback warnings, for stderr. */
  notices: string[];
  /** Ends what the run started (the MCP servers); absent ⇒ nothing. */
  close?: () => Promise<void>;
  /**
   * Joins what the run started to its open session (the MCP servers'
   * `session:mcp_server` events); absent ⇒ nothing.
   */
  attach?: (live: PersistedSession) => void;
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
  /**
   * Approves the agent file's inline MCP stdio servers (a terminal asks);
   * absent ⇒ only those approved before start.
   */
  approveMcp?: (input: {
    agent: Agent;
    agentFile: string;
    config: LoadedConfig;
  }) => Promise<Set<string>>;
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
      registryOf(config.value.resolved.providers).configuredKeys({
        get: (n) => ctx.io.env(n),
      }),
    );
  }
  return config;
}

/**
 * Maps the config's context settings onto the session's: `[chat]`
 * `max_messages`, `auto_compact`, `compact_threshold`, `[defaults]`
 * `max_tokens_estimate`, and the cost cap (`max_cost_microcents`,
 * `on_exceed`, `strict_cost_cap`) as `budget`, only when the cap is
 * positive.
 * The values were validated when the config loaded (a threshold outside
 * (0, 1] never gets here). No positive cap ⇒ no `budget` (no governor, no
 * unpriced-model notice).
 *
 * @param config The loaded config.
 * @returns The deps to spread into the session's deps.
 */
export function contextDeps(
  config: LoadedConfig,
): Pick<
  SessionSettings,
  | "maxMessages"
  | "autoCompact"
  | "compactThreshold"
  | "maxTokensEstimate"
  | "budget"
> {
  const { chat, defaults } = config.resolved;
  const cap = chat.maxCostMicrocents.value;
  return {
    ...(chat.maxMessages === undefined
      ? {}
      : { maxMessages: chat.maxMessages.value }),
    autoCompact: chat.autoCompact.value,
    compactThreshold: chat.compactThreshold.value,
    ...(defaults.maxTokensEstimate === undefined
      ? {}
      : { maxTokensEstimate: defaults.maxTokensEstimate.value }),
    ...(cap > 0
      ? {
        budget: {
          maxCostMicrocents: cap,
          onExceed: chat.onExceed.value,
          strictCostCap: chat.strictCostCap.value,
        },
      }
      : {}),
  };
}

/**
 * The host's options for a prepared run: the library's runtime over the
 * run's registry, cassette or recorder, the CLI's transport and sleep;
 * the tools; and the engine settings of the config.
 *
 * @param ctx The command context (cwd, env, fetch, sleep).
 * @param run The prepared run.
 * @param fetch The provider transport, when not the io's (an observed one).
 * @returns The runtime, tools, settings and secrets for the opener.
 */
export function hostOptionsOf(
  ctx: CommandEnv,
  run: PreparedRun,
  fetch: CliIo["fetch"] = ctx.io.fetch,
): Omit<HostOptions, "store"> & { settings: SessionSettings } {
  const { config, wiring } = run;
  const chat = config.resolved.chat;
  const runtime = denoRuntime({
    env: { get: (n) => ctx.io.env(n) },
    providers: config.resolved.providers,
    // The wiring's registry has priced the entries' models already.
    catalog: wiring.registry.catalog(),
    resolveProvider: wiring.replay === undefined
      ? undefined
      : (id) => wiring.replay?.resolveProvider(id),
    wrapProvider: wiring.recorder === undefined
      ? undefined
      : (id, p) => wiring.recorder?.wrap(id, p) ?? p,
    workingDir: ctx.cwd,
    adapters: {
      promptCaching: chat.promptCaching.value,
      ...streamLimitsOf(chat),
    },
    ...(fetch === undefined ? {} : { fetch }),
    ...(ctx.io.sleep === undefined ? {} : { sleep: ctx.io.sleep }),
  });
  return {
    runtime,
    settings: {
      interactive: false,
      maxTurns: chat.maxTurns.value,
      ...contextDeps(config),
    },
    secrets: wiring.secrets,
    ...(run.registry === undefined ? {} : { tools: run.registry }),
  };
}

/** The window of a known model, as the MCP wiring takes it. */
function windowOf(
  info: { contextWindowTokens: number } | undefined,
): { windowTokens?: number } {
  return info === undefined ? {} : { windowTokens: info.contextWindowTokens };
}

/** A cassette's declared window for the agent's model, if any. */
function replayWindow(
  wiring: ProviderWiring,
  agent: Agent,
): { contextWindowTokens: number } | undefined {
  const w = wiring.replay?.resolveProvider(agent.provider)?.contextLimit?.(
    agent.model,
  );
  return w === undefined ? undefined : { contextWindowTokens: w };
}

/**
 * The fault of a provider only an untrusted project file declares; its
 * module loads only when some file is untrusted.
 */
async function withheldFault(
  ctx: CommandEnv,
  config: LoadedConfig,
  ids: readonly string[],
): Promise<CliFault | undefined> {
  if (config.untrusted.length === 0) return undefined;
  return (await import("../config/withheld.ts")).withheldProviderFault(
    ids,
    config.untrusted,
    ctx.io.invocation?.(),
  );
}

/**
 * Resolves the agent of a new session: a file or id, else the built-in
 * chat agent; then `--model`/`--provider`.
 *
 * @param ctx The command context.
 * @param config The loaded config.
 * @param req The agent and model flags.
 * @param source Receives the agent's file, when it came from one.
 * @returns The agent, or a fault.
 */
export async function resolveRunAgent(
  ctx: CommandEnv,
  config: LoadedConfig,
  req: RunRequest,
  source: { file?: string } = {},
): Promise<Result<Agent, CliFault>> {
  const { resolved, paths } = config;
  const override = req.model === undefined ? undefined : {
    model: req.model,
    ...(req.provider === undefined ? {} : { provider: req.provider }),
  };
  const withheld = override?.provider === undefined
    ? undefined
    : await withheldFault(ctx, config, [override.provider]);
  if (withheld !== undefined) return err(withheld);
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
  source.file = found.value.file;
  return override === undefined
    ? ok(found.value.agent)
    : applyModelOverride(found.value.agent, override, resolved.providers);
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
  const source: { file?: string } = {};
  const agent = await resolveRunAgent(ctx, config.value, req, source);
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
  const context: SessionContext = {
    workingDir: ctx.cwd,
    fsScopeTier: resolved.chat.fsScope.value,
  };
  if (Object.keys(variables).length > 0) context.variables = variables;
  const { paths } = config.value;
  return await prepareRun(ctx, {
    config: config.value,
    agent: agent.value,
    context,
    ...(paths.projectRoot === undefined
      ? {}
      : { projectRoot: paths.projectRoot }),
    ...(source.file === undefined ? {} : { agentFile: source.file }),
    notices: resolved.notices,
  }, req);
}

/**
 * Prepares a new or a resumed session once its agent and context are
 * known: providers (or cassette, or recorder) and tools.
 *
 * @param ctx The command context.
 * @param base The config, agent, context, project root and notices.
 * @param req The fixture, record, user-tools and gate flags.
 * @returns The prepared run, or a pre-session fault.
 */
export async function prepareRun(
  ctx: CommandEnv,
  base: {
    config: LoadedConfig;
    agent: Agent;
    context: SessionContext;
    projectRoot?: string;
    /** The agent's file (its inline MCP stdio servers need approval). */
    agentFile?: string;
    notices: readonly string[];
  },
  req: Omit<RunRequest, "agent" | "model" | "provider">,
): Promise<Result<PreparedRun, CliFault>> {
  const { config, context } = base;
  const withheld = await withheldFault(ctx, config, [
    base.agent.provider,
    ...(base.agent.fallback_chain ?? []).map((f) => f.provider),
  ]);
  if (withheld !== undefined) return err(withheld);
  const wiring = await wireProviders(base.agent, {
    providers: config.resolved.providers,
    env: (n) => ctx.io.env(n),
    cwd: ctx.cwd,
    ...(req.fixture === undefined ? {} : { fixture: req.fixture }),
    ...(req.record === undefined ? {} : { record: req.record }),
    ...(ctx.io.resolveDns === undefined
      ? {}
      : { resolveDns: ctx.io.resolveDns }),
  });
  if (!wiring.ok) return wiring;
  const relaviumDir = config.paths.relaviumDir;
  const chat = config.resolved.chat;
  // Tools only when the agent grants some, names an MCP server, or for an
  // interactive chat's `@path` and `!cmd`; otherwise no tool module is
  // loaded (and the MCP modules only when the agent names a server).
  let registry: Result<ScopedToolRegistry | undefined, CliFault> = ok(
    undefined,
  );
  const agent = wiring.value.agent;
  const mcp = (agent.mcp_servers ?? []).length > 0;
  let mcpNotices: readonly string[] = [];
  let secrets = wiring.value.secrets;
  let close: (() => Promise<void>) | undefined;
  let attach: ((live: PersistedSession) => void) | undefined;
  if ((agent.tools ?? []).length > 0 || req.userTools === true || mcp) {
    const { buildToolRegistry } = await import("./tool_wiring.ts");
    // The servers are resolved first: the values they read from the
    // environment are screened like keys.
    const runMcp = mcp
      ? await (await import("./mcp_wiring.ts")).resolveRunMcp({
        agent,
        config,
        workingDir: context.workingDir,
        env: (n) => ctx.io.env(n),
        ...(base.agentFile === undefined ? {} : { agentFile: base.agentFile }),
      }, req.approveMcp)
      : undefined;
    mcpNotices = runMcp?.notices ?? [];
    secrets = [...secrets, ...(runMcp?.secrets ?? [])];
    const scope = {
      context,
      ...(base.projectRoot === undefined
        ? {}
        : { projectRoot: base.projectRoot }),
      ...(relaviumDir === undefined ? {} : { relaviumDir }),
      guardrails: {
        allowedCommands: chat.allowedCommands.value,
        allowedCommandGlobs: chat.allowedCommandGlobs.value,
        allowedDomains: chat.allowedDomains.value,
      },
      commandTimeoutMs: chat.commandTimeoutMs.value,
      secrets,
      ...(req.gate === undefined ? {} : { gate: req.gate }),
    };
    registry = buildToolRegistry(scope);
    if (registry.ok && runMcp !== undefined) {
      const joined = await runMcp.join({
        build(extraTools) {
          const built = buildToolRegistry({ ...scope, extraTools });
          if (!built.ok) throw new Error(built.error.message);
          return built.value;
        },
        ...(ctx.io.resolveDns === undefined
          ? {}
          : { resolveDns: ctx.io.resolveDns }),
        // The window the session measures against: a cassette's own
        // (v1.1 `context_window`), else the catalog's.
        ...windowOf(
          replayWindow(wiring.value, agent) ??
            wiring.value.registry.catalog().lookup(agent.model),
        ),
      });
      registry = ok(joined.registry);
      close = joined.close;
      attach = joined.attach;
    }
  }
  if (!registry.ok) return registry;
  return ok({
    config,
    agent: wiring.value.agent,
    context,
    wiring: { ...wiring.value, secrets },
    ...(registry.value === undefined ? {} : { registry: registry.value }),
    notices: [...base.notices, ...wiring.value.warnings, ...mcpNotices],
    ...(close === undefined ? {} : { close }),
    ...(attach === undefined ? {} : { attach }),
  });
}
