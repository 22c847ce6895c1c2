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
  #calls = new Map<
    string,
    { name: string; json: string; signature?: string }
  >();
  /** The parts in the order the model started them (text runs as slots). */
  #order: (
    | { kind: "text"; text: string }
    | { kind: "reasoning" | "call"; id: string }
  )[] = [];

  #reasoningOf(
    id: string,
  ): { text: string; signature?: string; redacted?: boolean } {
    let r = this.#reasoning.get(id);
    if (r === undefined) {
      r = { text: "" };
      this.#reasoning.set(id, r);
      this.#order.push({ kind: "reasoning", id });
    }
    return r;
  }

  /**
   * Adds one chunk.
   *
   * @param chunk A non-terminal chunk.
   */
  add(chunk: ContentChunk): void {
    switch (chunk.type) {
      case "text_delta": {
        if (chunk.text === "") return;
        this.text += chunk.text;
        const last = this.#order[this.#order.length - 1];
        if (last?.kind === "text") last.text += chunk.text;
        else this.#order.push({ kind: "text", text: chunk.text });
        return;
      }
      case "reasoning_start":
        this.#reasoningOf(chunk.id);
        return;
      case "reasoning_delta":
        this.#reasoningOf(chunk.id).text += chunk.text;
        return;
      case "reasoning_end": {
        const r = this.#reasoningOf(chunk.id);
        if (chunk.signature !== undefined) r.signature = chunk.signature;
        if (chunk.redacted !== undefined) r.redacted = chunk.redacted;
        return;
      }
      case "tool_call_start":
        if (!this.#calls.has(chunk.id)) {
          this.#calls.set(chunk.id, { name: chunk.name, json: "" });
          this.#order.push({ kind: "call", id: chunk.id });
        }
        return;
      case "tool_call_delta": {
        const c = this.#calls.get(chunk.id);
        if (c !== undefined) c.json += chunk.argsJsonDelta;
        return;
      }
      case "tool_call_end": {
        const c = this.#calls.get(chunk.id);
        if (c !== undefined && chunk.signature !== undefined) {
          c.signature = chunk.signature;
        }
        return;
      }
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
   * The assistant message content for the next round of this turn, in the
   * order the model produced it: reasoning parts (signatures and redacted
   * data kept for same-provider replay), text runs (one part per run between
   * other parts) and tool calls (with their signatures).
   *
   * @returns Request content parts.
   */
  assistantContent(): ContentPart[] {
    const parts: ContentPart[] = [];
    for (const slot of this.#order) {
      if (slot.kind === "text") {
        parts.push({ type: "text", text: slot.text });
      } else if (slot.kind === "reasoning") {
        const r = this.#reasoning.get(slot.id) ?? { text: "" };
        const part: ContentPart = { type: "reasoning", text: r.text };
        if (r.signature !== undefined) part.signature = r.signature;
        if (r.redacted !== undefined) part.redacted = r.redacted;
        parts.push(part);
      } else {
        const c = this.#calls.get(slot.id);
        if (c === undefined) continue;
        const part: ContentPart = {
          type: "tool_call",
          id: slot.id,
          name: c.name,
          args: parseArgsJson(c.json),
        };
        if (c.signature !== undefined) part.signature = c.signature;
        parts.push(part);
      }
    }
    return parts;
  }
}
