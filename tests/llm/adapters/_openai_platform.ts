/**
 * A loopback OpenAI platform for the routing tests: `/responses` streams
 * a documented Responses answer; `/chat/completions` streams a Chat
 * Completions answer, except that it refuses function tools beside a
 * reasoning effort for the GPT-5.x family with the 400 OpenAI sends
 * (the 5.6 models apply an effort by default, so there only
 * `reasoning_effort: "none"` goes with tools).
 */
import { fixture, sse, type TestServer } from "./_server.ts";
import { stream, TEXT } from "./_responses_wire.ts";

/** The refusal, as OpenAI words it. */
export function toolsWithEffortRefused(model: string): string {
  return `Function tools with reasoning_effort are not supported for ${model} in /v1/chat/completions. Please use /v1/responses instead.`;
}

function refusesTools(model: string, effort: unknown): boolean {
  if (!/^gpt-5/.test(model)) return false;
  if (effort === undefined) return /^gpt-5\.6/.test(model);
  return effort !== "none";
}

/**
 * Starts the platform on 127.0.0.1 (port 0); it answers at most `limit`
 * requests (a 500 after that) and records each.
 */
export function servePlatform(limit = 20): TestServer {
  const requests: TestServer["requests"] = [];
  const server = Deno.serve(
    { hostname: "127.0.0.1", port: 0, onListen() {} },
    async (req) => {
      const text = await req.text();
      const path = new URL(req.url).pathname;
      requests.push({
        method: req.method,
        path,
        headers: req.headers,
        body: text,
      });
      if (requests.length > limit) {
        return new Response("too many requests", { status: 500 });
      }
      if (path.endsWith("/responses")) return await stream(TEXT)(req);
      if (!path.endsWith("/chat/completions")) {
        return new Response("not found", { status: 404 });
      }
      const body = JSON.parse(text);
      const model = String(body.model);
      const tools = Array.isArray(body.tools) && body.tools.length > 0;
      if (tools && refusesTools(model, body.reasoning_effort)) {
        return new Response(
          JSON.stringify({
            error: {
              message: toolsWithEffortRefused(model),
              type: "invalid_request_error",
              param: "reasoning_effort",
              code: null,
            },
          }),
          { status: 400, headers: { "content-type": "application/json" } },
        );
      }
      return await sse(fixture("openai", "text.sse"))(req);
    },
  );
  return {
    url: `http://127.0.0.1:${server.addr.port}`,
    requests,
    close: () => server.shutdown(),
  };
}
