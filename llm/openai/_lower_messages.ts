/**
 * Canonical messages → OpenAI Chat Completions `messages`.
 *
 * @module
 */
import type { LlmMessage } from "../provider.ts";

/**
 * One tool call of an assistant message.
 */
export interface OpenAiToolCall {
  /** The call id the tool result answers. */
  id: string;
  /** Always `function`. */
  type: "function";
  /** Name and JSON-string arguments. */
  function: { name: string; arguments: string };
  /** Gemini's thought signature, sent back exactly as it came. */
  extra_content?: { google: { thought_signature: string } };
}

/**
 * One message we send.
 */
export type OpenAiMessage =
  | { role: "system"; content: string }
  | { role: "user"; content: string }
  | {
    role: "assistant";
    content: string | null;
    tool_calls?: OpenAiToolCall[];
    reasoning_content?: string;
  }
  | { role: "tool"; tool_call_id: string; content: string };

function resultText(result: unknown): string {
  if (typeof result === "string") return result;
  return JSON.stringify(result) ?? "";
}

function argsText(args: unknown): string {
  return JSON.stringify(args ?? {}) ?? "{}";
}

function assistant(
  m: LlmMessage,
  replayReasoning: boolean,
): OpenAiMessage | undefined {
  let text = "";
  let reasoning = "";
  const calls: OpenAiToolCall[] = [];
  for (const part of m.content) {
    if (part.type === "text") text += part.text;
    else if (part.type === "reasoning" && part.redacted !== true) {
      reasoning += part.text;
    } else if (part.type === "tool_call") {
      const call: OpenAiToolCall = {
        id: part.id,
        type: "function",
        function: { name: part.name, arguments: argsText(part.args) },
      };
      if (part.signature !== undefined && part.signature !== "") {
        call.extra_content = { google: { thought_signature: part.signature } };
      }
      calls.push(call);
    }
  }
  if (text === "" && calls.length === 0) return undefined;
  const out: OpenAiMessage = {
    role: "assistant",
    content: text === "" ? null : text,
  };
  if (calls.length > 0) {
    out.tool_calls = calls;
    if (replayReasoning && reasoning !== "") out.reasoning_content = reasoning;
  }
  return out;
}

/**
 * Lowers the conversation: the system prompt leads as a `system` message;
 * user text parts are joined by a blank line; an assistant message carries
 * its text (or `null`) and its `tool_calls` with JSON-string arguments (a
 * call's signature as `extra_content.google.thought_signature`, Gemini's
 * field: only the provider that made it ever sees it);
 * each tool result becomes a `tool` message (`tool_call_id`, content as a
 * string). Reasoning is dropped, except that `replayReasoning` (DeepSeek
 * thinking mode with tools) sends it back as `reasoning_content` on
 * assistant messages that made tool calls. Empty messages are dropped.
 *
 * @param system The system prompt.
 * @param messages The canonical messages.
 * @param replayReasoning Whether to send reasoning back with tool calls.
 * @returns The wire messages.
 */
export function lowerOpenAiMessages(
  system: string | undefined,
  messages: readonly LlmMessage[],
  replayReasoning: boolean,
): OpenAiMessage[] {
  const out: OpenAiMessage[] = [];
  if (system !== undefined && system !== "") {
    out.push({ role: "system", content: system });
  }
  for (const m of messages) {
    if (m.role === "assistant") {
      const msg = assistant(m, replayReasoning);
      if (msg !== undefined) out.push(msg);
    } else if (m.role === "tool") {
      for (const part of m.content) {
        if (part.type !== "tool_result") continue;
        out.push({
          role: "tool",
          tool_call_id: part.toolCallId,
          content: resultText(part.result),
        });
      }
    } else {
      const texts = m.content.flatMap((p) =>
        p.type === "text" && p.text !== "" ? [p.text] : []
      );
      if (texts.length > 0) {
        out.push({ role: "user", content: texts.join("\n\n") });
      }
    }
  }
  return out;
}
