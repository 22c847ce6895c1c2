/**
 * Cross-provider reasoning strip: reasoning parts and tool-call signatures
 * are provider-specific, so a request served by a provider other than the
 * one that produced them goes without them.
 *
 * @module
 */
import type { ContentPart, LlmMessage } from "./provider.ts";

function hasReasoning(messages: readonly LlmMessage[]): boolean {
  for (let i = 0; i < messages.length; i++) {
    const content = messages[i]?.content ?? [];
    for (let j = 0; j < content.length; j++) {
      const part = content[j];
      if (part?.type === "reasoning") return true;
      if (part?.type === "tool_call" && part.signature !== undefined) {
        return true;
      }
    }
  }
  return false;
}

/**
 * Removes every `reasoning` part and every tool call's signature, then drops messages left empty and merges
 * neighbouring `user`/`assistant` messages of the same role. `tool`
 * messages are never merged (one tool result per message). When
 * nothing is stripped the input array itself is returned (no copy: this
 * runs before every attempt, over the whole history).
 *
 * @param messages The request messages (not mutated).
 * @returns The messages to send and whether any part was removed.
 */
export function stripReasoning(
  messages: readonly LlmMessage[],
): { messages: LlmMessage[]; stripped: boolean } {
  if (!hasReasoning(messages)) {
    return { messages: messages as LlmMessage[], stripped: false };
  }
  const out: LlmMessage[] = [];
  for (const m of messages) {
    const content = m.content.flatMap((p): ContentPart[] => {
      if (p.type === "reasoning") return [];
      if (p.type !== "tool_call" || p.signature === undefined) return [p];
      const { signature: _, ...call } = p;
      return [call];
    });
    if (content.length === 0) continue;
    const prev = out[out.length - 1];
    if (prev !== undefined && prev.role === m.role && m.role !== "tool") {
      out[out.length - 1] = {
        role: prev.role,
        content: [...prev.content, ...content],
      };
    } else {
      out.push({ role: m.role, content });
    }
  }
  return { messages: out, stripped: true };
}
