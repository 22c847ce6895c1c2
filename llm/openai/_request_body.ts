/**
 * An {@linkcode LlmRequest} → the Chat Completions request body.
 *
 * @module
 */
import type { ModelCatalog } from "../catalog.ts";
import type { LlmRequest, ToolChoice } from "../provider.ts";
import type { MaxTokensParam, OpenAiDialect } from "./types.ts";
import { lowerOpenAiMessages } from "./_lower_messages.ts";
import { chatReasoning } from "./_reasoning.ts";
import type { Result } from "../../schema/result.ts";

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
 * Builds the request body, or a local refusal (tools for a model that
 * takes them only through the Responses API): `model, messages, tools?,
 * tool_choice?, temperature?, stop?, reasoning_effort? | thinking?, <max
 * tokens>?, stream: true, stream_options: {include_usage: true}`. The
 * reasoning fields follow the model's catalog flags (see `chatReasoning`):
 * `temperature` is dropped where it would go with a non-`none` effort.
 * The output cap is sent only when authored, clamped to the catalog's
 * ceiling. DeepSeek gets its reasoning back on tool-call messages.
 * `providerOptions` are merged underneath (canonical fields win).
 *
 * @param req The request.
 * @param options Dialect, cap field, catalog.
 * @returns The body, or the refusal message.
 */
export function buildOpenAiBody(
  req: LlmRequest,
  options: OpenAiBodyOptions,
): Result<Record<string, unknown>, string> {
  const info = options.catalog.lookup(req.model);
  const reasoning = chatReasoning(options.dialect, req, info);
  if (reasoning.kind === "refused") {
    return { ok: false, error: reasoning.message };
  }
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
  if (req.temperature !== undefined && reasoning.sampling) {
    body.temperature = req.temperature;
  }
  if (req.stopSequences !== undefined && req.stopSequences.length > 0) {
    body.stop = req.stopSequences;
  }
  Object.assign(body, reasoning.fields);
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
  return { ok: true, value: body };
}
