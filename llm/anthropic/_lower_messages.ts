/**
 * Canonical messages → Anthropic `messages`.
 *
 * @module
 */
import type { ContentPart, LlmMessage } from "../provider.ts";
import { isObject, type JsonObject } from "../_wire_json.ts";

/**
 * One Anthropic content block we send.
 */
export type AnthropicBlock =
  | { type: "text"; text: string }
  | { type: "thinking"; thinking: string; signature: string }
  | { type: "redacted_thinking"; data: string }
  | { type: "tool_use"; id: string; name: string; input: JsonObject }
  | {
    type: "tool_result";
    tool_use_id: string;
    content: string;
    is_error?: true;
  };

/**
 * One Anthropic message we send.
 */
export interface AnthropicMessage {
  /** `tool` messages travel as `user`. */
  role: "user" | "assistant";
  /** Non-empty content blocks. */
  content: AnthropicBlock[];
}

/** Stands in for a missing first user turn (the API requires one). */
const OPENING_USER_TEXT = "(conversation continues)";

function resultText(result: unknown): string {
  if (typeof result === "string") return result;
  return JSON.stringify(result) ?? "";
}

function lowerPart(
  part: ContentPart,
  role: LlmMessage["role"],
): AnthropicBlock | undefined {
  switch (part.type) {
    case "text":
      return part.text === "" ? undefined : { type: "text", text: part.text };
    case "reasoning":
      // Only thinking with its replay token goes back (same provider; the
      // chain strips reasoning before any other provider sees it): a signed
      // block as `thinking`, a redacted one as `redacted_thinking` with its
      // data unchanged.
      if (role !== "assistant") return undefined;
      if (part.signature === undefined || part.signature === "") {
        return undefined;
      }
      if (part.redacted === true) {
        return { type: "redacted_thinking", data: part.signature };
      }
      return {
        type: "thinking",
        thinking: part.text,
        signature: part.signature,
      };
    case "tool_call":
      if (role !== "assistant") return undefined;
      return {
        type: "tool_use",
        id: part.id,
        name: part.name,
        input: isObject(part.args) ? part.args : {},
      };
    case "tool_result": {
      if (role === "assistant") return undefined;
      const block: AnthropicBlock = {
        type: "tool_result",
        tool_use_id: part.toolCallId,
        content: resultText(part.result),
      };
      if (part.isError === true) block.is_error = true;
      return block;
    }
  }
}

function blocksOf(m: LlmMessage): AnthropicBlock[] {
  const out: AnthropicBlock[] = [];
  for (const part of m.content) {
    const block = lowerPart(part, m.role);
    if (block !== undefined) out.push(block);
  }
  return out;
}

/** Inserts tool results after the leading tool results of a user message. */
function withResultsFirst(
  content: AnthropicBlock[],
  results: AnthropicBlock[],
): AnthropicBlock[] {
  let i = 0;
  while (i < content.length && content[i]?.type === "tool_result") i++;
  return [...content.slice(0, i), ...results, ...content.slice(i)];
}

/**
 * Lowers the conversation: `tool_call` → `tool_use`; signed assistant
 * reasoning → a `thinking` block, redacted reasoning with its data → a
 * `redacted_thinking` block, each where the model produced it (blocks keep
 * the parts' order; reasoning without a replay token is not sent back);
 * consecutive `tool` messages → one `user` message whose `tool_result`
 * blocks (content as a string, `is_error` when set) come first; neighbouring messages of one
 * role are merged and empty ones dropped; a conversation that would open
 * with the assistant gets a short user turn first.
 *
 * @param messages The canonical messages.
 * @returns The Anthropic messages.
 */
export function lowerAnthropicMessages(
  messages: readonly LlmMessage[],
): AnthropicMessage[] {
  const out: AnthropicMessage[] = [];
  for (const m of messages) {
    const content = blocksOf(m);
    if (content.length === 0) continue;
    const role = m.role === "assistant" ? "assistant" : "user";
    const prev = out[out.length - 1];
    if (prev === undefined || prev.role !== role) {
      out.push({ role, content });
    } else if (m.role === "tool") {
      prev.content = withResultsFirst(prev.content, content);
    } else {
      prev.content = [...prev.content, ...content];
    }
  }
  if (out[0]?.role === "assistant") {
    out.unshift({
      role: "user",
      content: [{ type: "text", text: OPENING_USER_TEXT }],
    });
  }
  return out;
}
