/**
 * Our messages as Gemini `contents`: `user` and `model` turns of parts,
 * each thought signature back on the part it came with.
 *
 * @module
 */
import type { ContentPart, LlmMessage } from "../provider.ts";
import { isObject } from "../_wire_json.ts";

/** One Gemini content: a role and its parts. */
export interface GeminiContent {
  role: "user" | "model";
  parts: Record<string, unknown>[];
}

/**
 * Lowers the conversation: user text is a `user` turn; an assistant
 * message a `model` turn (reasoning as `thought: true` text, text, and
 * `functionCall`s, in the order produced); the tool results that follow
 * one `model` turn are one `user` turn of `functionResponse`s, named after
 * their calls (a result whose call is not in the history is named
 * `unknown_tool`). A reasoning part's signature goes back on it; a
 * signature that came on a plain text part (kept as an empty reasoning
 * part before it) goes back on that text part; a call's signature on its
 * `functionCall` part. A result that is not a JSON object is wrapped as
 * `{result}`, and a failed one as `{error}`, as `response` must be an object.
 *
 * @param messages The conversation, oldest first.
 * @returns The contents.
 */
export function lowerGeminiContents(
  messages: readonly LlmMessage[],
): GeminiContent[] {
  const names = new Map<string, string>();
  const contents: GeminiContent[] = [];
  for (const message of messages) {
    if (message.role === "assistant") {
      contents.push({
        role: "model",
        parts: modelParts(message.content, names),
      });
      continue;
    }
    const parts = message.content.flatMap((part) => userPart(part, names));
    if (parts.length === 0) continue;
    const last = contents.at(-1);
    // Consecutive tool results (and the text beside them) are one turn.
    if (message.role === "tool" && last?.role === "user") {
      last.parts.push(...parts);
    } else {
      contents.push({ role: "user", parts });
    }
  }
  return contents;
}

function modelParts(
  content: readonly ContentPart[],
  names: Map<string, string>,
): Record<string, unknown>[] {
  const out: Record<string, unknown>[] = [];
  let carried: string | undefined;
  for (const part of content) {
    switch (part.type) {
      case "reasoning":
        if (part.text === "" && part.signature !== undefined) {
          carried = part.signature;
          break;
        }
        out.push({
          text: part.text,
          thought: true,
          ...(part.signature === undefined
            ? {}
            : { thoughtSignature: part.signature }),
        });
        break;
      case "text":
        out.push({
          text: part.text,
          ...(carried === undefined ? {} : { thoughtSignature: carried }),
        });
        carried = undefined;
        break;
      case "tool_call":
        names.set(part.id, part.name);
        out.push({
          functionCall: {
            name: part.name,
            args: isObject(part.args) ? part.args : {},
          },
          ...(part.signature === undefined
            ? {}
            : { thoughtSignature: part.signature }),
        });
        break;
      default:
        break;
    }
  }
  if (carried !== undefined) out.push({ text: "", thoughtSignature: carried });
  return out;
}

function userPart(
  part: ContentPart,
  names: ReadonlyMap<string, string>,
): Record<string, unknown>[] {
  if (part.type === "text") {
    return part.text === "" ? [] : [{ text: part.text }];
  }
  if (part.type !== "tool_result") return [];
  const result = part.result;
  const response = part.isError === true
    ? { error: result }
    : isObject(result)
    ? result
    : { result };
  return [{
    functionResponse: {
      name: names.get(part.toolCallId) ?? "unknown_tool",
      response,
    },
  }];
}
