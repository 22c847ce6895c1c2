/**
 * Gemini wire helpers shared by the adapter and CLI tests: SSE bodies of
 * `GenerateContentResponse` events, and a reply that refuses a request
 * after a function call unless it answers the call and carries its
 * thought signature, as Gemini 3 does.
 */
import { type Reply, sse } from "./_server.ts";

/** The model the tests ask for. */
export const MODEL = "gemini-3.8-flash";
/** Thought signatures (opaque base64, `+` and `/` included). */
export const SIG_A = "CiQB0e2Kb+/sigA==";
export const SIG_B = "EjYKNAHR7Ypsig/B+==";

/** An SSE body of `data:` events (one JSON object each). */
export function wire(events: readonly unknown[]): Uint8Array {
  return new TextEncoder().encode(
    events.map((e) => `data: ${JSON.stringify(e)}\r\n\r\n`).join(""),
  );
}

/** One `GenerateContentResponse` of the first candidate. */
export function chunk(
  parts: readonly unknown[],
  extra: { finishReason?: string; usage?: unknown } = {},
): unknown {
  const candidate: Record<string, unknown> = {
    content: { role: "model", parts },
    index: 0,
  };
  if (extra.finishReason !== undefined) {
    candidate.finishReason = extra.finishReason;
  }
  return {
    candidates: [candidate],
    ...(extra.usage === undefined ? {} : { usageMetadata: extra.usage }),
    modelVersion: MODEL,
    responseId: "resp-1",
  };
}

export const USAGE = {
  promptTokenCount: 120,
  candidatesTokenCount: 30,
  thoughtsTokenCount: 50,
  cachedContentTokenCount: 100,
  totalTokenCount: 200,
};

/**
 * What Gemini 3 checks on the request after a function call: the
 * previous model turn's `functionCall` part carries its
 * `thoughtSignature` unchanged, and the next user turn answers it with a
 * `functionResponse` of the same name (one per call, in order).
 */
export function refuseUnlessAnswered(
  expected: { name: string; signature: string; result: string },
  body: () => string,
): Reply {
  return async (req) => {
    const sent = JSON.parse(body());
    const contents: Array<{ role: string; parts: Record<string, unknown>[] }> =
      sent.contents ?? [];
    const model = contents.findIndex((c) =>
      c.role === "model" && c.parts.some((p) => p.functionCall !== undefined)
    );
    const callPart = contents[model]?.parts.find((p) =>
      p.functionCall !== undefined
    );
    const answer = contents[model + 1];
    const response = answer?.parts.find((p) => p.functionResponse !== undefined)
      ?.functionResponse as
        | { name?: string; response?: { output?: unknown } }
        | undefined;
    const ok = callPart?.thoughtSignature === expected.signature &&
      answer?.role === "user" && response?.name === expected.name &&
      JSON.stringify(response?.response?.output ?? "").includes(
        expected.result,
      );
    if (!ok) {
      return new Response(
        JSON.stringify({
          error: {
            code: 400,
            message:
              "Function call is missing a thought_signature in functionCall parts.",
            status: "INVALID_ARGUMENT",
          },
        }),
        { status: 400, headers: { "content-type": "application/json" } },
      );
    }
    return await sse(wire([
      chunk([{ text: "The secret word is kumquat." }], {
        finishReason: "STOP",
        usage: USAGE,
      }),
    ]))(req);
  };
}
