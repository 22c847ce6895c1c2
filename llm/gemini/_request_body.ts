/**
 * The `streamGenerateContent` request body: contents, system instruction,
 * function declarations and the generation config the model's catalog
 * flags allow.
 *
 * @module
 */
import type { LlmRequest } from "../provider.ts";
import type { ModelInfo } from "../catalog.ts";
import { lowerGeminiContents } from "./_lower_messages.ts";
import { toGeminiSchema } from "./_schema.ts";

type Effort = NonNullable<LlmRequest["reasoningEffort"]>;

/** Gemini 2.5 thinking budgets by effort (tokens). */
const BUDGETS: Readonly<Record<Exclude<Effort, "off">, number>> = {
  low: 1024,
  medium: 8192,
  high: 24576,
  max: 32768,
};

/**
 * The `thinkingConfig` of an effort: Gemini 3 models take a
 * `thinkingLevel` (`off` and `low` ⇒ `low`, `medium`, `high` and `max` ⇒
 * `high`; their thinking cannot be turned off); Gemini 2.5 a
 * `thinkingBudget` (`off` ⇒ 0 where thinking can be disabled, else the
 * smallest budget, 128), capped at the model's output ceiling. Thoughts
 * are included (as summaries) whenever the model thinks. No effort, or a
 * model the catalog does not list as reasoning: nothing.
 */
function thinkingConfig(
  model: string,
  effort: Effort | undefined,
  info: ModelInfo | undefined,
): Record<string, unknown> | undefined {
  if (effort === undefined || info?.reasoning === false) return undefined;
  if (/^gemini-[3-9]/.test(model)) {
    const level = effort === "off" || effort === "low"
      ? "low"
      : effort === "medium"
      ? "medium"
      : "high";
    return { thinkingLevel: level, includeThoughts: true };
  }
  if (effort === "off") {
    return info?.thinkingOff === "never"
      ? { thinkingBudget: 128, includeThoughts: true }
      : { thinkingBudget: 0 };
  }
  const ceiling = info?.maxOutputTokens;
  const budget = ceiling === undefined
    ? BUDGETS[effort]
    : Math.min(BUDGETS[effort], ceiling);
  return { thinkingBudget: budget, includeThoughts: true };
}

function toolConfig(choice: LlmRequest["toolChoice"]): unknown {
  if (choice === undefined || choice === "auto") return undefined;
  if (choice === "none") return { functionCallingConfig: { mode: "NONE" } };
  if (choice === "required") return { functionCallingConfig: { mode: "ANY" } };
  return {
    functionCallingConfig: { mode: "ANY", allowedFunctionNames: [choice.name] },
  };
}

/**
 * Builds the body: `contents`, `systemInstruction?`, `tools?`
 * (`functionDeclarations` with converted schemas), `toolConfig?`,
 * `generationConfig` (`maxOutputTokens` when authored, clamped to the
 * catalog's ceiling; `temperature` unless the model rejects sampling;
 * `stopSequences`; `thinkingConfig`). `providerOptions` are merged
 * underneath (canonical fields win).
 *
 * @param req The request.
 * @param info The model's catalog entry.
 * @returns The body.
 */
export function buildGeminiBody(
  req: LlmRequest,
  info: ModelInfo | undefined,
): Record<string, unknown> {
  const body: Record<string, unknown> = {
    contents: lowerGeminiContents(req.messages),
  };
  if (req.system !== undefined && req.system !== "") {
    body.systemInstruction = { parts: [{ text: req.system }] };
  }
  const tools = req.tools ?? [];
  if (tools.length > 0) {
    body.tools = [{
      functionDeclarations: tools.map((tool) => ({
        name: tool.name,
        ...(tool.description === undefined
          ? {}
          : { description: tool.description }),
        parameters: toGeminiSchema(tool.parameters),
      })),
    }];
    const config = toolConfig(req.toolChoice);
    if (config !== undefined) body.toolConfig = config;
  }
  const generation: Record<string, unknown> = {};
  if (req.maxTokens !== undefined && req.maxTokens > 0) {
    const cap = Math.floor(req.maxTokens);
    const ceiling = info?.maxOutputTokens;
    generation.maxOutputTokens = ceiling !== undefined && ceiling > 0
      ? Math.min(cap, ceiling)
      : cap;
  }
  if (req.temperature !== undefined && info?.rejectsSampling !== true) {
    generation.temperature = req.temperature;
  }
  if (req.stopSequences !== undefined && req.stopSequences.length > 0) {
    generation.stopSequences = req.stopSequences;
  }
  const thinking = thinkingConfig(req.model, req.reasoningEffort, info);
  if (thinking !== undefined) generation.thinkingConfig = thinking;
  if (Object.keys(generation).length > 0) body.generationConfig = generation;
  for (const [k, v] of Object.entries(req.providerOptions ?? {})) {
    if (!Object.hasOwn(body, k)) body[k] = v;
  }
  return body;
}
