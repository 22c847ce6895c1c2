/**
 * An {@linkcode LlmRequest} → the Chat Completions request body.
 *
 * @module
 */
import type { ModelCatalog } from "../catalog.ts";
import type { LlmRequest, ToolChoice } from "../provider.ts";
import type { MaxTokensParam, OpenAiDialect } from "./types.ts";
import { lowerOpenAiMessages } from "./_lower_messages.ts";
import { reasoningFields } from "./_reasoning.ts";

/**
 * How a body is built for one provider.
 */
export interface OpenAiBodyOptions {
  /** Reasoning and overflow conventions. */
  dialect: OpenAiDialect;
  /** The output-cap field name. */
  maxTokensParam: MaxTokensParam;
  /** Output ceilings and reasoning flags. */
  catalog: ModelCatalog;
}

function toolChoice(choice: ToolChoice): unknown {
  if (typeof choice === "string") return choice;
  return { type: "function", function: { name: choice.name } };
}

/**
 * Builds the request body: `model, messages, tools?, tool_choice?,
 * temperature?, stop?, reasoning_effort? | thinking?, <max tokens>?,
 * stream: true, stream_options: {include_usage: true}`. The output cap is
 * sent only when authored, clamped to the catalog's ceiling. DeepSeek gets
 * its reasoning back on tool-call messages. `providerOptions` are merged
 * underneath (canonical fields win).
 *
 * @param req The request.
 * @param options Dialect, cap field, catalog.
 * @returns The body.
 */
export function buildOpenAiBody(
  req: LlmRequest,
  options: OpenAiBodyOptions,
): Record<string, unknown> {
  const info = options.catalog.lookup(req.model);
  const body: Record<string, unknown> = {
    model: req.model,
    messages: lowerOpenAiMessages(
      req.system,
      req.messages,
      options.dialect === "deepseek",
    ),
  };
  const tools = req.tools ?? [];
  if (tools.length > 0) {
    body.tools = tools.map((tool) => {
      const fn: Record<string, unknown> = { name: tool.name };
      if (tool.description !== undefined) fn.description = tool.description;
      fn.parameters = tool.parameters;
      return { type: "function", function: fn };
    });
    if (req.toolChoice !== undefined) {
      body.tool_choice = toolChoice(req.toolChoice);
    }
  }
  if (req.temperature !== undefined) body.temperature = req.temperature;
  if (req.stopSequences !== undefined && req.stopSequences.length > 0) {
    body.stop = req.stopSequences;
  }
  Object.assign(
    body,
    reasoningFields(
      options.dialect,
      req.model,
      req.reasoningEffort,
      info?.reasoning,
    ),
  );
  if (req.maxTokens !== undefined && req.maxTokens > 0) {
    const ceiling = info?.maxOutputTokens;
    const cap = Math.floor(req.maxTokens);
    body[options.maxTokensParam] = ceiling !== undefined && ceiling > 0
      ? Math.min(cap, ceiling)
      : cap;
  }
  body.stream = true;
  body.stream_options = { include_usage: true };
  for (const [k, v] of Object.entries(req.providerOptions ?? {})) {
    if (!Object.hasOwn(body, k)) body[k] = v;
  }
  return body;
}
