/**
 * A loopback OpenAI-compatible provider for the terminal-chat tests, and
 * the project folder that declares it: every request's last user text is
 * kept; each answer streams its deltas and may hold its stream open until
 * the test releases it or the client goes away (a cancelled turn).
 */
import { declareProviders } from "./_fake_providers.ts";
import { trustProjectFiles } from "./_helpers.ts";

/** One scripted answer. */
export interface Answer {
  /**
   * Deltas sent at once. The host's redaction holds back the newest
   * delta until another event, so a held answer shows all but its last.
   */
  deltas: string[];
  /** Hold the stream open after `deltas` until `release()`. */
  hold?: boolean;
  /** Deltas sent after the release. */
  rest?: string[];
  /** A tool call the answer ends with (finish reason `tool_calls`). */
  toolCall?: { name: string; args: Record<string, unknown> };
}

/** The running provider. */
export interface ChatProvider extends AsyncDisposable {
  /** The `base_url` to declare. */
  readonly url: string;
  /** Each request's last user message text, in order. */
  userTexts(): string[];
  /** Each request's model, in order. */
  models(): string[];
  /** Resolves when the N-th request (1-based) has arrived. */
  arrived(n: number): Promise<void>;
  /** Ends the held stream. */
  release(): void;
  /** Resolves when the N-th request's held stream was cancelled by the client. */
  cancelled(n: number): Promise<void>;
}

function chunk(delta: Record<string, unknown>, finish?: string): string {
  return `data: ${
    JSON.stringify({
      id: "c1",
      object: "chat.completion.chunk",
      choices: [{ index: 0, delta, finish_reason: finish ?? null }],
    })
  }\n\n`;
}

const USAGE = `data: ${
  JSON.stringify({
    id: "c1",
    object: "chat.completion.chunk",
    choices: [],
    usage: { prompt_tokens: 5, completion_tokens: 2, total_tokens: 7 },
  })
}\n\ndata: [DONE]\n\n`;

function userText(body: string): string {
  const parsed = JSON.parse(body) as {
    messages: Array<{ role: string; content: unknown }>;
  };
  const user = parsed.messages.filter((m) => m.role === "user").at(-1);
  const c = user?.content;
  if (typeof c === "string") return c;
  if (Array.isArray(c)) {
    return c.map((p: { text?: string }) => p.text ?? "").join("");
  }
  return "";
}

/** A promise with its resolver. */
function signal(): { promise: Promise<void>; resolve: () => void } {
  let resolve = (): void => {};
  const promise = new Promise<void>((r) => resolve = r);
  return { promise, resolve };
}

/**
 * Starts the provider.
 *
 * @param answers One per request; later requests reuse the last.
 * @returns The provider.
 */
export function chatProvider(answers: readonly Answer[]): ChatProvider {
  const texts: string[] = [];
  const models: string[] = [];
  const arrivals: Array<ReturnType<typeof signal>> = [];
  const cancels: Array<ReturnType<typeof signal>> = [];
  const slot = (list: typeof arrivals, n: number) => {
    for (let i = list.length; i < n; i++) list.push(signal());
    return list[n - 1] ?? signal();
  };
  let release = (): void => {};
  const encoder = new TextEncoder();
  const server = Deno.serve(
    { hostname: "127.0.0.1", port: 0, onListen() {} },
    async (req) => {
      const raw = await req.text();
      texts.push(userText(raw));
      models.push(String(JSON.parse(raw).model));
      const n = texts.length;
      slot(arrivals, n).resolve();
      const answer = answers[n - 1] ?? answers.at(-1) ?? { deltas: ["ok"] };
      const body = new ReadableStream<Uint8Array>({
        async start(controller) {
          for (const d of answer.deltas) {
            controller.enqueue(encoder.encode(chunk({ content: d })));
          }
          if (answer.hold === true) {
            await new Promise<void>((r) => release = r);
          }
          try {
            for (const d of answer.rest ?? []) {
              controller.enqueue(encoder.encode(chunk({ content: d })));
            }
            const call = answer.toolCall;
            if (call !== undefined) {
              controller.enqueue(encoder.encode(chunk({
                tool_calls: [{
                  index: 0,
                  id: `call_${n}`,
                  type: "function",
                  function: {
                    name: call.name,
                    arguments: JSON.stringify(call.args),
                  },
                }],
              })));
            }
            controller.enqueue(
              encoder.encode(
                chunk({}, call === undefined ? "stop" : "tool_calls") + USAGE,
              ),
            );
            controller.close();
          } catch {
            // The client went away.
          }
        },
        cancel() {
          slot(cancels, n).resolve();
          release();
        },
      });
      return new Response(body, {
        headers: { "content-type": "text/event-stream" },
      });
    },
  );
  return {
    url: `http://127.0.0.1:${server.addr.port}`,
    userTexts: () => [...texts],
    models: () => [...models],
    arrived: (n) => slot(arrivals, n).promise,
    release: () => release(),
    cancelled: (n) => slot(cancels, n).promise,
    async [Symbol.asyncDispose]() {
      release();
      await server.shutdown();
    },
  };
}

/**
 * Declares the provider in `dir` (a widening project file: `allow_local`)
 * and trusts it unless `trust` is `false`, then returns the chat's
 * arguments and environment (Relavium home `home`).
 *
 * @param dir The project folder.
 * @param home The Relavium home.
 * @param provider The provider.
 * @param trust Whether to trust the project file first (default `true`).
 * @returns The `chat` argv and environment.
 */
export async function chatSetup(
  dir: string,
  home: string,
  provider: ChatProvider,
  trust = true,
): Promise<{ args: string[]; env: Record<string, string> }> {
  await declareProviders(dir, [{
    id: "fake-openai",
    kind: "openai-compatible",
    baseUrl: `${provider.url}/v1/`,
    allowLocal: true,
  }]);
  const env = { RELAVIUM_HOME: home, NO_COLOR: "1" };
  if (trust) await trustProjectFiles(dir, env);
  return {
    args: ["chat", "--model", "qwen2.5:7b", "--provider", "fake-openai"],
    env,
  };
}
