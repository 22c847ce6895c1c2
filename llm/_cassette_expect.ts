/**
 * Checks a request against a v1.1 cassette call's `expect` block.
 *
 * @module
 */
import type { CassetteExpect } from "./cassette.ts";
import type { LlmRequest } from "./provider.ts";

function lastUserText(req: LlmRequest): string | undefined {
  for (let i = req.messages.length - 1; i >= 0; i--) {
    const m = req.messages[i];
    if (m?.role !== "user") continue;
    return m.content.map((p) => p.type === "text" ? p.text : "").join("\n");
  }
  return undefined;
}

function messageText(req: LlmRequest): string[] {
  return req.messages.map((m) =>
    m.content.map((p) =>
      p.type === "text" || p.type === "reasoning"
        ? p.text
        : p.type === "tool_result"
        ? (typeof p.result === "string" ? p.result : JSON.stringify(p.result))
        : ""
    ).join("\n")
  );
}

function hasToolResult(req: LlmRequest, id: string): boolean {
  return req.messages.some((m) =>
    m.content.some((p) => p.type === "tool_result" && p.toolCallId === id)
  );
}

function sameSet(a: readonly string[], b: readonly string[]): boolean {
  const sa = new Set(a);
  const sb = new Set(b);
  return sa.size === sb.size && [...sa].every((x) => sb.has(x));
}

/**
 * Lists every way a request differs from an expectation, each naming the
 * key and the difference (e.g. `expect.model: wanted "x", got "y"`). The
 * user's text is never echoed.
 *
 * @param expect The call's expectations.
 * @param req The request the replay provider received.
 * @returns One line per mismatch; empty when the request matches.
 */
export function expectMismatches(
  expect: CassetteExpect,
  req: LlmRequest,
): string[] {
  const out: string[] = [];
  if (expect.model !== undefined && expect.model !== req.model) {
    out.push(
      `expect.model: wanted ${JSON.stringify(expect.model)}, got ${
        JSON.stringify(req.model)
      }`,
    );
  }
  if (expect.maxTokens !== undefined && expect.maxTokens !== req.maxTokens) {
    out.push(
      `expect.maxTokens: wanted ${expect.maxTokens}, got ${
        req.maxTokens ?? "none"
      }`,
    );
  }
  if (expect.tools !== undefined) {
    const got = (req.tools ?? []).map((t) => t.name);
    if (!sameSet(expect.tools, got)) {
      const want = [...new Set(expect.tools)].sort();
      out.push(
        `expect.tools: wanted ${JSON.stringify(want)}, got ${
          JSON.stringify([...new Set(got)].sort())
        }`,
      );
    }
  }
  if (expect.lastUserIncludes !== undefined) {
    const text = lastUserText(req);
    if (text === undefined) {
      out.push("expect.lastUserIncludes: the request has no user message");
    } else if (!text.includes(expect.lastUserIncludes)) {
      out.push(
        `expect.lastUserIncludes: ${
          JSON.stringify(expect.lastUserIncludes)
        } not found in the last user message`,
      );
    }
  }
  if (expect.messagesInclude !== undefined) {
    const texts = messageText(req);
    expect.messagesInclude.forEach((needle, i) => {
      if (!texts.some((t) => t.includes(needle))) {
        out.push(
          `expect.messagesInclude[${i}]: ${
            JSON.stringify(needle)
          } not found in any request message`,
        );
      }
    });
  }
  if (
    expect.toolResultFor !== undefined &&
    !hasToolResult(req, expect.toolResultFor)
  ) {
    out.push(
      `expect.toolResultFor: no tool_result for ${
        JSON.stringify(expect.toolResultFor)
      } in the request`,
    );
  }
  return out;
}
