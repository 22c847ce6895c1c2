/**
 * Cassette builders for the CLI tests: the chunks of a text answer or a
 * tool call, and the v1.0 (list of calls) and strict v1.1 (calls with
 * `expect`) cassette files around them.
 */

/** One stream chunk, as a cassette stores it. */
export type Chunk = Record<string, unknown>;

/** Token counts of a call's `stop` chunk. */
export interface Usage {
  inputTokens: number;
  outputTokens: number;
}

/** One strict call: what the request must hold, and the chunks answered. */
export interface StrictCall {
  expect?: Record<string, unknown>;
  chunks: Chunk[];
}

/** The chunks of a call answering `text` (default usage 20 in, 4 out). */
export function textChunks(
  text: string,
  usage: Usage = { inputTokens: 20, outputTokens: 4 },
): Chunk[] {
  return [
    { type: "text_delta", text },
    { type: "stop", stopReason: "stop", usage },
  ];
}

/**
 * The chunks of a call asking for tool `name` with `args` (a string is sent
 * as is, anything else as JSON; default usage 10 in, 3 out).
 */
export function callChunks(
  id: string,
  name: string,
  args: unknown,
  usage: Usage = { inputTokens: 10, outputTokens: 3 },
): Chunk[] {
  return [
    { type: "tool_call_start", id, name },
    {
      type: "tool_call_delta",
      id,
      argsJsonDelta: typeof args === "string" ? args : JSON.stringify(args),
    },
    { type: "tool_call_end", id },
    { type: "stop", stopReason: "tool_use", usage },
  ];
}

/** A v1.0 cassette: each call a list of chunks. */
export function cassette(calls: Chunk[][], provider = "anthropic"): string {
  return JSON.stringify({ schema_version: "1.0", provider, calls });
}

/** A strict v1.1 cassette: each call with its `expect` (every call consumed). */
export function strictCassette(
  calls: StrictCall[],
  provider = "anthropic",
): string {
  return JSON.stringify({
    schema_version: "1.1",
    strict: true,
    provider,
    calls,
  });
}

/** Options of {@linkcode readRound}. */
export interface ReadRound {
  /** The call id. */
  id: string;
  /** The file the model asks `read_file` for. */
  path: string;
  /** The text answered once the result is in. */
  answer: string;
  /** The tools the first request must offer (default `["read_file"]`). */
  tools?: string[];
  /** Texts the second request must hold besides the result. */
  messagesInclude?: string[];
  /** The usage of the call, then of the answer (default 10/3, 20/4). */
  usage?: [Usage, Usage];
}

/** A strict `read_file` round: the call, then the answer to its result. */
export function readRound(round: ReadRound): StrictCall[] {
  const [call, answer] = round.usage ?? [undefined, undefined];
  return [
    {
      expect: { tools: round.tools ?? ["read_file"] },
      chunks: callChunks(round.id, "read_file", { path: round.path }, call),
    },
    {
      expect: {
        toolResultFor: round.id,
        ...(round.messagesInclude === undefined
          ? {}
          : { messagesInclude: round.messagesInclude }),
      },
      chunks: textChunks(round.answer, answer),
    },
  ];
}
