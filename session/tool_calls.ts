/**
 * Accumulates one response's streamed content: text, reasoning blocks and
 * tool calls (args concatenated per id, parsed once at the end).
 *
 * @module
 */
import type { StreamChunk } from "../llm/chunk.ts";
import type { ContentPart } from "../llm/provider.ts";

/**
 * A tool call as the model issued it.
 */
export interface IssuedCall {
  /** The provider's call id (used in the request transcript only). */
  providerId: string;
  /** The raw model-chosen name. */
  name: string;
  /** The raw JSON argument text, as streamed. */
  argsJson: string;
  /** Parsed args; `{}` when empty or unparseable. */
  args: unknown;
}

/**
 * Parses streamed JSON args: `""` or unparseable ⇒ `{}` (the tool validator
 * then reports correctable invalid args).
 *
 * @param json The concatenated deltas.
 * @returns The parsed value or `{}`.
 */
export function parseArgsJson(json: string): unknown {
  if (json.trim() === "") return {};
  try {
    return JSON.parse(json);
  } catch {
    return {};
  }
}

/**
 * A non-terminal chunk: what one response's content is made of.
 */
export type ContentChunk = Exclude<
  StreamChunk,
  { type: "stop" } | { type: "error" }
>;

/**
 * Collects the non-terminal chunks of one response.
 */
export class ResponseCollector {
  /** The concatenated text of this response. */
  text = "";
  #reasoning = new Map<
    string,
    { text: string; signature?: string; redacted?: boolean }
  >();
  #calls = new Map<string, { name: string; json: string }>();

  /**
   * Adds one chunk.
   *
   * @param chunk A non-terminal chunk.
   */
  add(chunk: ContentChunk): void {
    switch (chunk.type) {
      case "text_delta":
        this.text += chunk.text;
        return;
      case "reasoning_start":
        if (!this.#reasoning.has(chunk.id)) {
          this.#reasoning.set(chunk.id, { text: "" });
        }
        return;
      case "reasoning_delta": {
        const r = this.#reasoning.get(chunk.id) ?? { text: "" };
        r.text += chunk.text;
        this.#reasoning.set(chunk.id, r);
        return;
      }
      case "reasoning_end": {
        const r = this.#reasoning.get(chunk.id) ?? { text: "" };
        if (chunk.signature !== undefined) r.signature = chunk.signature;
        if (chunk.redacted !== undefined) r.redacted = chunk.redacted;
        this.#reasoning.set(chunk.id, r);
        return;
      }
      case "tool_call_start":
        if (!this.#calls.has(chunk.id)) {
          this.#calls.set(chunk.id, { name: chunk.name, json: "" });
        }
        return;
      case "tool_call_delta": {
        const c = this.#calls.get(chunk.id);
        if (c !== undefined) c.json += chunk.argsJsonDelta;
        return;
      }
      case "tool_call_end":
        return;
      default: {
        const never: never = chunk;
        return never;
      }
    }
  }

  /**
   * The tool calls in start order.
   *
   * @returns One entry per call.
   */
  calls(): IssuedCall[] {
    return [...this.#calls].map(([providerId, c]) => ({
      providerId,
      name: c.name,
      argsJson: c.json,
      args: parseArgsJson(c.json),
    }));
  }

  /**
   * The assistant message content for the next round of this turn:
   * reasoning parts (signatures kept for same-provider replay), one text
   * part (omitted if empty), tool calls in start order.
   *
   * @returns Request content parts.
   */
  assistantContent(): ContentPart[] {
    const parts: ContentPart[] = [];
    for (const r of this.#reasoning.values()) {
      const part: ContentPart = { type: "reasoning", text: r.text };
      if (r.signature !== undefined) part.signature = r.signature;
      if (r.redacted !== undefined) part.redacted = r.redacted;
      parts.push(part);
    }
    if (this.text !== "") parts.push({ type: "text", text: this.text });
    for (const c of this.calls()) {
      parts.push({
        type: "tool_call",
        id: c.providerId,
        name: c.name,
        args: c.args,
      });
    }
    return parts;
  }
}
