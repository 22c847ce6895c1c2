/**
 * Canonical messages → Gemini `contents`.
 *
 * @module
 */
import type { ContentPart, LlmMessage } from "../provider.ts";
import { isObject, type JsonObject } from "../_wire_json.ts";

/** One Gemini part we send. */
export type GeminiPart =
  | { text: string; thought?: true; thoughtSignature?: string }
  | {
    functionCall: { name: string; args: JsonObject; id?: string };
    thoughtSignature?: string;
  }
  | {
    functionResponse: { name: string; response: JsonObject; id?: string };
  };

/** One Gemini content we send. */
export interface GeminiContent {
  /** `tool` results travel as `user`. */
  role: "user" | "model";
  /** Non-empty parts. */
  parts: GeminiPart[];
}

/**
 * The signature Gemini documents for a call it did not make (a fallback
 * provider's, or one whose signature was dropped on the way through
 * another provider): it skips the check that would otherwise refuse the
 * request. Never sent for a call Gemini made and left unsigned.
 */
export const SKIP_SIGNATURE = "skip_thought_signature_validator";

/**
 * The signature the mapper gives a call Gemini made without one (in a
 * step of parallel calls only the first is signed): it tells Gemini's own
 * unsigned call from another provider's, which carries none, and it is
 * never sent. A change of provider strips it like any signature.
 */
export const UNSIGNED_CALL = "";

/** Stands in for a missing first user turn. */
const OPENING_USER_TEXT = "(conversation continues)";

/**
 * The prefix of the ids the mapper makes for calls Gemini sent without
 * one: such an id is ours and never sent back.
 */
export const GENERATED_CALL_ID_PREFIX = "gemini_call_";

function wireId(id: string): { id?: string } {
  return id === "" || id.startsWith(GENERATED_CALL_ID_PREFIX) ? {} : { id };
}

function signed(signature: string | undefined): { thoughtSignature?: string } {
  return signature === undefined || signature === ""
    ? {}
    : { thoughtSignature: signature };
}

/** A non-thought text part without a signature (a signature may join it). */
function unsignedText(part: GeminiPart | undefined): part is { text: string } {
  return part !== undefined && "text" in part && part.thought !== true &&
    part.thoughtSignature === undefined;
}

function modelParts(
  content: readonly ContentPart[],
  foreign: WeakSet<GeminiPart>,
): GeminiPart[] {
  const out: GeminiPart[] = [];
  for (const part of content) {
    switch (part.type) {
      case "text":
        if (part.text !== "") out.push({ text: part.text });
        break;
      case "reasoning": {
        if (part.redacted === true) {
          // A text part's signature: back on the text it came with.
          if (part.signature === undefined || part.signature === "") break;
          const last = out[out.length - 1];
          if (unsignedText(last)) last.thoughtSignature = part.signature;
          else out.push({ text: "", thoughtSignature: part.signature });
          break;
        }
        if (part.text === "" && part.signature === undefined) break;
        out.push({ text: part.text, thought: true, ...signed(part.signature) });
        break;
      }
      case "tool_call": {
        const call: GeminiPart = {
          functionCall: {
            name: part.name,
            args: isObject(part.args) ? part.args : {},
            ...wireId(part.id),
          },
          ...signed(part.signature),
        };
        if (part.signature === undefined) foreign.add(call);
        out.push(call);
        break;
      }
      case "tool_result":
        break;
    }
  }
  return out;
}

function userParts(content: readonly ContentPart[]): GeminiPart[] {
  const out: GeminiPart[] = [];
  for (const part of content) {
    if (part.type === "text" && part.text !== "") out.push({ text: part.text });
  }
  return out;
}

/** Records the name of each call of a message, by id (the latest wins). */
function noteCalls(m: LlmMessage, names: Map<string, string>): void {
  for (const part of m.content) {
    if (part.type === "tool_call") names.set(part.id, part.name);
  }
}

function responseParts(
  content: readonly ContentPart[],
  names: ReadonlyMap<string, string>,
): GeminiPart[] {
  const out: GeminiPart[] = [];
  for (const part of content) {
    if (part.type !== "tool_result") continue;
    const response: JsonObject = part.isError === true
      ? { error: part.result }
      : { output: part.result };
    out.push({
      functionResponse: {
        name: names.get(part.toolCallId) ?? part.toolCallId,
        response,
        ...wireId(part.toolCallId),
      },
    });
  }
  return out;
}

/**
 * Lowers the conversation: assistant messages → `model` contents whose
 * parts keep the model's order — text, thought parts (`thought: true`,
 * with their `thoughtSignature`), `functionCall` parts (args as an
 * object, their `thoughtSignature` on the same part); a redacted
 * reasoning part is a text part's signature and goes back on the text
 * before it (or on an empty text part when none precedes it). User text
 * → `user` parts; each tool result → a `functionResponse` part (in
 * order, in a `user` content) named after the latest call before it with
 * its id, its
 * result as `{output}` or, for an error, `{error}`. Ids Gemini gave are
 * sent back; the ones we made are not (Gemini pairs calls and responses
 * by order). A call of the current turn (after the last user text) that
 * has no signature — another provider's, after a fallback — carries
 * Gemini's documented skip value instead; a call Gemini made unsigned
 * (signature {@linkcode UNSIGNED_CALL}) goes back unsigned. Neighbouring contents of one role are merged, empty ones
 * dropped, and a conversation that would open with the model gets a
 * short user turn first.
 *
 * @param messages The canonical messages.
 * @returns The Gemini contents.
 */
export function lowerGeminiMessages(
  messages: readonly LlmMessage[],
): GeminiContent[] {
  const names = new Map<string, string>();
  const foreign = new WeakSet<GeminiPart>();
  const out: GeminiContent[] = [];
  for (const m of messages) {
    noteCalls(m, names);
    const parts = m.role === "assistant"
      ? modelParts(m.content, foreign)
      : m.role === "tool"
      ? responseParts(m.content, names)
      : userParts(m.content);
    if (parts.length === 0) continue;
    const role = m.role === "assistant" ? "model" : "user";
    const prev = out[out.length - 1];
    if (prev !== undefined && prev.role === role) {
      prev.parts = [...prev.parts, ...parts];
    } else {
      out.push({ role, parts });
    }
  }
  signCurrentTurn(out, foreign);
  if (out[0]?.role === "model") {
    out.unshift({ role: "user", parts: [{ text: OPENING_USER_TEXT }] });
  }
  return out;
}

/**
 * Gemini checks the signatures of the current turn's calls (those after
 * the last user text): a call there that came from another provider (no
 * signature at all, not even {@linkcode UNSIGNED_CALL}) gets
 * {@linkcode SKIP_SIGNATURE}; Gemini's own unsigned calls stay unsigned.
 */
function signCurrentTurn(
  contents: GeminiContent[],
  foreign: WeakSet<GeminiPart>,
): void {
  let start = 0;
  contents.forEach((c, i) => {
    if (c.role === "user" && c.parts.some((p) => "text" in p)) start = i + 1;
  });
  for (const c of contents.slice(start)) {
    if (c.role !== "model") continue;
    for (const part of c.parts) {
      if ("functionCall" in part && foreign.has(part)) {
        part.thoughtSignature = SKIP_SIGNATURE;
      }
    }
  }
}
