/**
 * The Responses API request body: `input` items, `instructions`, function
 * tools and the reasoning and sampling fields the model's catalog flags
 * allow.
 *
 * @module
 */
import type { ModelInfo } from "../catalog.ts";
import type { ContentPart, LlmMessage, LlmRequest } from "../provider.ts";
import { openAiEffort } from "../openai/_reasoning.ts";
import { isObject } from "../_wire_json.ts";

/**
 * A reasoning item as carried on a reasoning part's `signature`: the item
 * id and its encrypted content, so it can be sent back within the turn.
 */
interface CarriedReasoning {
  id: string;
  encrypted_content: string;
}

/**
 * Packs a reasoning item into the opaque signature of a reasoning part.
 *
 * @param id The item id (`rs_…`).
 * @param encrypted The item's `encrypted_content`.
 * @returns The signature.
 */
export function reasoningSignature(id: string, encrypted: string): string {
  return JSON.stringify({ id, encrypted_content: encrypted });
}

function carried(signature: string | undefined): CarriedReasoning | undefined {
  if (signature === undefined) return undefined;
  try {
    const v: unknown = JSON.parse(signature);
    return isObject(v) && typeof v["id"] === "string" &&
        typeof v["encrypted_content"] === "string"
      ? { id: v["id"], encrypted_content: v["encrypted_content"] }
      : undefined;
  } catch {
    return undefined;
  }
}

function resultText(
  part: Extract<ContentPart, { type: "tool_result" }>,
): string {
  return typeof part.result === "string"
    ? part.result
    : JSON.stringify(part.result ?? null);
}

/**
 * Our messages as `input` items, in order: user text as a user message;
 * an assistant message as its reasoning items (each carried one, with its
 * summary), its text as an assistant message, and its calls as
 * `function_call` items (`call_id`, `name`, `arguments`); each tool result
 * as a `function_call_output` keyed by its call's `call_id`. A reasoning
 * part without a carried item (another provider's) is left out.
 *
 * @param messages The conversation, oldest first.
 * @returns The items.
 */
export function lowerResponsesInput(
  messages: readonly LlmMessage[],
): Record<string, unknown>[] {
  const items: Record<string, unknown>[] = [];
  for (const m of messages) {
    let text = "";
    const flushText = (role: "user" | "assistant"): void => {
      if (text !== "") items.push({ role, content: text });
      text = "";
    };
    const role = m.role === "assistant" ? "assistant" : "user";
    for (const part of m.content) {
      switch (part.type) {
        case "text":
          text += part.text;
          break;
        case "reasoning": {
          const item = carried(part.signature);
          if (item === undefined) break;
          flushText(role);
          items.push({
            type: "reasoning",
            id: item.id,
            encrypted_content: item.encrypted_content,
            summary: part.text === ""
              ? []
              : [{ type: "summary_text", text: part.text }],
          });
          break;
        }
        case "tool_call":
          flushText(role);
          items.push({
            type: "function_call",
            call_id: part.id,
            name: part.name,
            arguments: JSON.stringify(part.args ?? {}),
          });
          break;
        case "tool_result":
          flushText(role);
          items.push({
            type: "function_call_output",
            call_id: part.toolCallId,
            output: resultText(part),
          });
          break;
      }
    }
    flushText(role);
  }
  return items;
}

function toolChoice(choice: LlmRequest["toolChoice"]): unknown {
  if (choice === undefined || typeof choice === "string") return choice;
  return { type: "function", name: choice.name };
}

/** A short stable digest (FNV-1a, 32 bits, hex) of a text. */
function digest(text: string): string {
  let h = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) {
    h ^= text.charCodeAt(i);
    h = Math.imul(h, 0x01000193) >>> 0;
  }
  return h.toString(16).padStart(8, "0");
}

/**
 * Builds the body: `model`, `input`, `instructions?`, `tools?`
 * (`{type: "function", name, description, parameters, strict: false}`),
 * `tool_choice?`, `reasoning?` (`{effort, summary: "auto"}`, the effort
 * mapped to the model's tiers) with `include:
 * ["reasoning.encrypted_content"]` for a reasoning model, `temperature`
 * only where the model samples (no effort other than `none`, and not a
 * model that rejects sampling), `max_output_tokens` when authored (clamped
 * to the catalog's ceiling), `stream: true`, `store: false` (nothing is
 * kept by the provider; reasoning rides in the items instead) and a
 * `prompt_cache_key` derived from the model and the instructions, so
 * requests that share a prefix share a cache. `providerOptions` are
 * merged underneath.
 *
 * @param req The request.
 * @param info The model's catalog entry (`undefined` = unknown).
 * @returns The body.
 */
export function buildResponsesBody(
  req: LlmRequest,
  info: ModelInfo | undefined,
): Record<string, unknown> {
  const body: Record<string, unknown> = {
    model: req.model,
    input: lowerResponsesInput(req.messages),
  };
  if (req.system !== undefined && req.system !== "") {
    body.instructions = req.system;
  }
  const tools = req.tools ?? [];
  if (tools.length > 0) {
    body.tools = tools.map((t) => ({
      type: "function",
      name: t.name,
      ...(t.description === undefined ? {} : { description: t.description }),
      parameters: t.parameters,
      strict: false,
    }));
    const choice = toolChoice(req.toolChoice);
    if (choice !== undefined) body.tool_choice = choice;
  }
  const reasons = info?.reasoning !== false;
  const effort = reasons && req.reasoningEffort !== undefined
    ? openAiEffort(req.model, req.reasoningEffort, info?.effortTiers)
    : undefined;
  if (effort !== undefined) body.reasoning = { effort, summary: "auto" };
  if (info?.reasoning === true || effort !== undefined) {
    body.include = ["reasoning.encrypted_content"];
  }
  const samples = info?.rejectsSampling !== true &&
    (effort === undefined ? info?.reasoning !== true : effort === "none");
  if (req.temperature !== undefined && samples) {
    body.temperature = req.temperature;
  }
  if (req.maxTokens !== undefined && req.maxTokens > 0) {
    const cap = Math.floor(req.maxTokens);
    const ceiling = info?.maxOutputTokens;
    body.max_output_tokens = ceiling !== undefined && ceiling > 0
      ? Math.min(cap, ceiling)
      : cap;
  }
  body.stream = true;
  body.store = false;
  body.prompt_cache_key = `relavium-${
    digest(`${req.model}\n${req.system ?? ""}`)
  }`;
  for (const [k, v] of Object.entries(req.providerOptions ?? {})) {
    if (!Object.hasOwn(body, k)) body[k] = v;
  }
  return body;
}
