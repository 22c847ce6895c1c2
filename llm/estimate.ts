/**
 * The token estimator shared by admission and compaction. A heuristic: usage is authoritative.
 *
 * @module
 */
import type { ContentPart, LlmMessage, ToolDef } from "./provider.ts";

/**
 * What the estimator measures.
 */
export interface EstimateInput {
  /** System prompt. */
  system?: string;
  /** Request messages. */
  messages: readonly LlmMessage[];
  /** Advertised tools. */
  tools?: readonly ToolDef[];
}

function jsonLength(value: unknown): number {
  try {
    return JSON.stringify(value)?.length ?? 0;
  } catch {
    // Cycles or BigInts: fall back to the string form; still a heuristic.
    return String(value).length;
  }
}

function partChars(part: ContentPart): number {
  return part.type === "text" ? part.text.length : jsonLength(part);
}

/**
 * Estimates the tokens of a request: `ceil(chars / 4)` where chars = the
 * system prompt + 8 per message + text lengths + the JSON length of each
 * non-text part + the JSON length of each tool.
 *
 * @param input System prompt, messages and tools.
 * @returns The estimated token count.
 */
export function estimateTokens(input: EstimateInput): number {
  let chars = input.system?.length ?? 0;
  for (const message of input.messages) {
    chars += 8;
    for (const part of message.content) chars += partChars(part);
  }
  for (const tool of input.tools ?? []) chars += jsonLength(tool);
  return Math.ceil(chars / 4);
}
