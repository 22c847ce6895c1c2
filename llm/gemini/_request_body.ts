/**
 * An {@linkcode LlmRequest} → the `streamGenerateContent` request body.
 *
 * @module
 */
import type { ModelCatalog } from "../catalog.ts";
import type { LlmRequest, ToolChoice } from "../provider.ts";
import type { JsonObject } from "../_wire_json.ts";
import { lowerGeminiMessages } from "./_lower_messages.ts";
import { geminiParameters } from "./_schema.ts";
import { geminiThinking } from "./_thinking.ts";

function functionCallingConfig(choice: ToolChoice): JsonObject {
  if (choice === "auto") return { mode: "AUTO" };
  if (choice === "none") return { mode: "NONE" };
  if (choice === "required") return { mode: "ANY" };
  return { mode: "ANY", allowedFunctionNames: [choice.name] };
}

/**
 * Builds the request body: `contents`, `systemInstruction?` (one text
 * part), `tools?: [{functionDeclarations}]` with each tool's parameters
 * converted by `geminiParameters`, `toolConfig?` (`AUTO` / `NONE` /
 * `ANY`, a named tool as `ANY` with `allowedFunctionNames`) and
 * `generationConfig` with `maxOutputTokens` (only when authored, clamped
 * to the catalog's ceiling), `temperature` (never to a model that
 * refuses sampling parameters), `stopSequences` and `thinkingConfig`
 * (see `geminiThinking`); an empty `generationConfig` is left out.
 * `providerOptions` are merged underneath (canonical fields win).
 *
 * @param req The request.
 * @param catalog Output ceilings and reasoning flags.
 * @returns The body.
 */
export function buildGeminiBody(
  req: LlmRequest,
  catalog: ModelCatalog,
): JsonObject {
  const info = catalog.lookup(req.model);
  const body: JsonObject = { contents: lowerGeminiMessages(req.messages) };
  if (req.system !== undefined && req.system !== "") {
    body.systemInstruction = { parts: [{ text: req.system }] };
  }
  const tools = req.tools ?? [];
  if (tools.length > 0) {
    body.tools = [{
      functionDeclarations: tools.map((tool) => {
        const fn: JsonObject = { name: tool.name };
        if (tool.description !== undefined) fn.description = tool.description;
        const parameters = geminiParameters(tool.parameters);
        if (parameters !== undefined) fn.parameters = parameters;
        return fn;
      }),
    }];
    if (req.toolChoice !== undefined) {
      body.toolConfig = {
        functionCallingConfig: functionCallingConfig(req.toolChoice),
      };
    }
  }
  const config: JsonObject = {};
  if (req.maxTokens !== undefined && req.maxTokens > 0) {
    const ceiling = info?.maxOutputTokens;
    const cap = Math.floor(req.maxTokens);
    config.maxOutputTokens = ceiling !== undefined && ceiling > 0
      ? Math.min(cap, ceiling)
      : cap;
  }
  if (req.temperature !== undefined && info?.rejectsSampling !== true) {
    config.temperature = req.temperature;
  }
  if (req.stopSequences !== undefined && req.stopSequences.length > 0) {
    config.stopSequences = req.stopSequences;
  }
  const thinking = geminiThinking(req.reasoningEffort, info);
  if (thinking !== undefined) config.thinkingConfig = thinking;
  if (Object.keys(config).length > 0) body.generationConfig = config;
  for (const [k, v] of Object.entries(req.providerOptions ?? {})) {
    if (!Object.hasOwn(body, k)) body[k] = v;
  }
  return body;
}
