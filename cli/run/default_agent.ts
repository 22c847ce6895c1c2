/**
 * The built-in chat agent and the `--model` /
 * `--provider` override.
 *
 * @module
 */
import type { Agent } from "../../schema/agent.ts";
import { err, ok, type Result } from "../../schema/result.ts";
import type { ResolvedChat, ResolvedProvider } from "../config/resolve.ts";
import { type CliFault, fault } from "../fault.ts";
import { inferProvider } from "../../llm/provider_table.ts";

/**
 * The built-in agent's id.
 */
export const DEFAULT_AGENT_ID: string = "relavium-chat";

const SYSTEM_PROMPT =
  "You are Relavium, a concise assistant working in the user's project. " +
  "Answer briefly and precisely. You can read files, list directories and " +
  "check git status; you cannot change anything. Say so when you are unsure.";

function checkProvider(
  id: string,
  providers: readonly ResolvedProvider[],
): CliFault | undefined {
  return providers.some((p) => p.id === id) ? undefined : fault(
    "provider_config",
    `Unknown provider "${id}": use a built-in id (anthropic, openai, gemini, deepseek) or declare it in [[providers]]`,
  );
}

/**
 * Builds the built-in chat agent from the resolved `[chat]` settings, or
 * on `--model` (with `--provider` where it cannot be inferred).
 *
 * @param chat The resolved chat config (model, provider, effort).
 * @param providers The known providers.
 * @param override `--model` and `--provider`, if given.
 * @returns The agent, or a fault: `provider_config` when the configured
 * model's provider cannot be inferred or is unknown, `usage` when the
 * `--model`'s provider cannot be inferred.
 */
export function buildDefaultAgent(
  chat: ResolvedChat,
  providers: readonly ResolvedProvider[],
  override?: { model: string; provider?: string },
): Result<Agent, CliFault> {
  let model = chat.defaultModel.value;
  let provider = chat.defaultProvider?.value;
  if (override !== undefined) {
    model = override.model;
    provider = override.provider ?? inferProvider(model);
    if (provider === undefined) {
      return err(fault(
        "usage",
        `Cannot infer the provider of model "${model}": pass --provider`,
      ));
    }
  }
  if (provider === undefined) {
    return err(fault(
      "provider_config",
      `Cannot infer the provider of model "${model}": set [chat].default_provider next to default_model, or pass --model with --provider`,
    ));
  }
  const bad = checkProvider(provider, providers);
  if (bad !== undefined) return err(bad);
  const agent: Agent = {
    id: DEFAULT_AGENT_ID,
    name: "Relavium chat",
    model,
    provider,
    system_prompt: SYSTEM_PROMPT,
    tools: ["read_file", "list_directory", "git_status"],
  };
  if (chat.reasoningEffort !== undefined) {
    agent.reasoning_effort = chat.reasoningEffort.value;
  }
  return ok(agent);
}

/**
 * Applies `--model` (and `--provider`): replaces the primary model and
 * drops the fallback chain.
 *
 * @param agent The agent as authored or built.
 * @param override The model and, where it cannot be inferred, the provider.
 * @param providers The known providers.
 * @returns The new agent, or a fault (`usage` when the provider cannot be
 * inferred, `provider_config` when it is unknown).
 */
export function applyModelOverride(
  agent: Agent,
  override: { model: string; provider?: string },
  providers: readonly ResolvedProvider[],
): Result<Agent, CliFault> {
  const provider = override.provider ?? inferProvider(override.model);
  if (provider === undefined) {
    return err(fault(
      "usage",
      `Cannot infer the provider of model "${override.model}": pass --provider`,
    ));
  }
  const bad = checkProvider(provider, providers);
  if (bad !== undefined) return err(bad);
  const { fallback_chain: _dropped, ...rest } = agent;
  return ok({ ...rest, model: override.model, provider });
}
