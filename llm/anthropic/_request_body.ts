/**
 * An {@linkcode LlmRequest} → the Anthropic Messages request body.
 *
 * @module
 */
import type { ModelCatalog } from "../catalog.ts";
import type { LlmRequest, ToolChoice } from "../provider.ts";
import type { Result } from "../../schema/result.ts";
import {
  type AnthropicMessage,
  lowerAnthropicMessages,
} from "./_lower_messages.ts";
import { anthropicThinking } from "./_thinking.ts";

/** Output cap sent when the request authors none. */
export const ANTHROPIC_DEFAULT_MAX_TOKENS = 4096;

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
 * The `max_tokens` to send: the authored cap, else 4096, clamped to the
 * model's output ceiling when the catalog knows it.
 *
 * @param req The request.
 * @param catalog The model catalog.
 * @returns A positive token count.
 */
export function anthropicMaxTokens(
  req: LlmRequest,
  catalog: ModelCatalog,
): number {
  const wanted = req.maxTokens !== undefined && req.maxTokens > 0
    ? Math.floor(req.maxTokens)
    : ANTHROPIC_DEFAULT_MAX_TOKENS;
  const ceiling = catalog.lookup(req.model)?.maxOutputTokens;
  return ceiling !== undefined && ceiling > 0
    ? Math.min(wanted, ceiling)
    : wanted;
}

/**
 * Builds the request body, or a local refusal: `temperature` outside 0..1
 * is a `bad_request` that never reaches the network. Field order: `model,
 * max_tokens, system?, messages, tools?, tool_choice?, temperature?,
 * stop_sequences?, thinking?, output_config?, stream`. `providerOptions`
 * are merged underneath (canonical fields win). With thinking on,
 * `temperature` is left at its default and `tool_choice` is auto or none.
 *
 * @param req The request.
 * @param catalog The model catalog (output ceiling, reasoning flag).
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
  const maxTokens = anthropicMaxTokens(req, catalog);
  const think = anthropicThinking(
    req.model,
    req.reasoningEffort,
    maxTokens,
    catalog.lookup(req.model)?.reasoning,
  );
  const thinkingOn = think.thinking !== undefined &&
    think.thinking.type !== "disabled";
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
  if (t !== undefined && !thinkingOn) canonical.temperature = t;
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
