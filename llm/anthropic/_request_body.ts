/**
 * An {@linkcode LlmRequest} → the Anthropic Messages request body.
 *
 * @module
 */
import type { ModelCatalog, ModelInfo } from "../catalog.ts";
import type { LlmRequest, ToolChoice } from "../provider.ts";
import type { Result } from "../../schema/result.ts";
import {
  type AnthropicMessage,
  lowerAnthropicMessages,
} from "./_lower_messages.ts";
import { anthropicThinking, fitThinkingBudget } from "./_thinking.ts";

/** Answer tokens sent when the request authors none and the model is unknown. */
export const ANTHROPIC_DEFAULT_MAX_TOKENS = 4096;
/**
 * Answer tokens when the request authors none and the catalog knows the
 * model's ceiling: enough for a large tool call (a whole file in
 * `write_file`), capped at the ceiling. Not the ceiling itself: the
 * provider counts `max_tokens` against output rate limits.
 */
export const AGENT_DEFAULT_ANSWER_TOKENS = 32_000;

type WireToolChoice =
  | { type: "auto" }
  | { type: "none" }
  | { type: "any" }
  | { type: "tool"; name: string };

function toolChoice(choice: ToolChoice, thinking: boolean): WireToolChoice {
  if (choice === "none") return { type: "none" };
  // With thinking on, only auto and none are accepted.
  if (thinking || choice === "auto") return { type: "auto" };
  if (choice === "required") return { type: "any" };
  return { type: "tool", name: choice.name };
}

/**
 * The `max_tokens` to send: the answer's tokens (the authored cap, else
 * 32,000 for a model the catalog knows and 4,096 for one it does not)
 * plus the thinking reserve on top, clamped to the model's output ceiling
 * when the catalog knows it. Thinking never takes the answer's share: a
 * legacy budget is then fitted below it ({@linkcode fitThinkingBudget}).
 *
 * @param req The request.
 * @param info The model's catalog entry.
 * @param reserve Tokens reserved for thinking.
 * @returns A positive token count and the answer's share.
 */
export function anthropicMaxTokens(
  req: LlmRequest,
  info: ModelInfo | undefined,
  reserve: number,
): { maxTokens: number; answer: number } {
  const ceiling = info?.maxOutputTokens;
  const known = ceiling !== undefined && ceiling > 0;
  const answer = req.maxTokens !== undefined && req.maxTokens > 0
    ? Math.floor(req.maxTokens)
    : known
    ? AGENT_DEFAULT_ANSWER_TOKENS
    : ANTHROPIC_DEFAULT_MAX_TOKENS;
  const wanted = answer + reserve;
  return { maxTokens: known ? Math.min(wanted, ceiling) : wanted, answer };
}

/**
 * Builds the request body, or a local refusal: `temperature` outside 0..1
 * is a `bad_request` that never reaches the network. Field order: `model,
 * max_tokens, system?, messages, tools?, tool_choice?, temperature?,
 * stop_sequences?, thinking?, output_config?, stream`. `providerOptions`
 * are merged underneath (canonical fields win). With thinking on (asked
 * for, or the model's default), `temperature` is left at its default and
 * `tool_choice` is auto or none; a model that refuses sampling parameters
 * never gets `temperature`.
 *
 * @param req The request.
 * @param catalog The model catalog (output ceiling, capability flags).
 * @returns The body, or the refusal message.
 */
export function buildAnthropicBody(
  req: LlmRequest,
  catalog: ModelCatalog,
): Result<Record<string, unknown>, string> {
  const t = req.temperature;
  if (t !== undefined && !(t >= 0 && t <= 1)) {
    return {
      ok: false,
      error:
        `Request refused: temperature must be between 0 and 1 for Anthropic, got ${t}`,
    };
  }
  const info = catalog.lookup(req.model);
  const wanted = anthropicThinking(req.model, req.reasoningEffort, info);
  const { maxTokens, answer } = anthropicMaxTokens(req, info, wanted.reserve);
  const think = fitThinkingBudget(wanted, maxTokens, answer);
  const thinkingOn = think.on;
  const messages: AnthropicMessage[] = lowerAnthropicMessages(req.messages);
  const canonical: Record<string, unknown> = {
    model: req.model,
    max_tokens: maxTokens,
  };
  if (req.system !== undefined && req.system !== "") {
    canonical.system = req.system;
  }
  canonical.messages = messages;
  const tools = req.tools ?? [];
  if (tools.length > 0) {
    canonical.tools = tools.map((tool) => {
      const wire: Record<string, unknown> = { name: tool.name };
      if (tool.description !== undefined) wire.description = tool.description;
      wire.input_schema = tool.parameters;
      return wire;
    });
    if (req.toolChoice !== undefined) {
      canonical.tool_choice = toolChoice(req.toolChoice, thinkingOn);
    }
  }
  // Sampling parameters go only to a model that accepts them, and never
  // while it thinks.
  if (t !== undefined && !thinkingOn && info?.rejectsSampling !== true) {
    canonical.temperature = t;
  }
  if (req.stopSequences !== undefined && req.stopSequences.length > 0) {
    canonical.stop_sequences = req.stopSequences;
  }
  if (think.thinking !== undefined) canonical.thinking = think.thinking;
  if (think.output_config !== undefined) {
    canonical.output_config = think.output_config;
  }
  canonical.stream = true;
  const extra = withoutKeys(req.providerOptions ?? {}, canonical);
  return { ok: true, value: { ...canonical, ...extra } };
}

function withoutKeys(
  extra: Record<string, unknown>,
  canonical: Record<string, unknown>,
): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(extra)) {
    if (!Object.hasOwn(canonical, k)) out[k] = v;
  }
  return out;
}
