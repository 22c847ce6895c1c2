/**
 * Documented Responses API event streams for the adapter and CLI tests:
 * a reasoning item then text, and a reasoning item then a `read_file`
 * call with split arguments.
 */
import type { Reply } from "./_server.ts";

/** One SSE event per documented stream event (`event:` name, `data:` object). */
export function stream(
  events: Array<Record<string, unknown>>,
  piece = 0,
): Reply {
  const text = events.map((e) =>
    `event: ${String(e["type"])}\ndata: ${JSON.stringify(e)}\n\n`
  ).join("");
  const bytes = new TextEncoder().encode(text);
  return () =>
    new Response(
      piece === 0 ? bytes : new ReadableStream<Uint8Array>({
        start(c) {
          for (let i = 0; i < bytes.length; i += piece) {
            c.enqueue(bytes.slice(i, i + piece));
          }
          c.close();
        },
      }),
      { headers: { "content-type": "text/event-stream" } },
    );
}

export const USAGE = {
  input_tokens: 120,
  input_tokens_details: { cached_tokens: 100 },
  output_tokens: 40,
  output_tokens_details: { reasoning_tokens: 25 },
  total_tokens: 160,
};
export const created = {
  type: "response.created",
  response: { id: "resp_1", status: "in_progress" },
};
/** A `response.completed` event with `usage`. */
export function completed(usage: unknown = USAGE): Record<string, unknown> {
  return {
    type: "response.completed",
    response: { id: "resp_1", status: "completed", usage },
  };
}

/** Reasoning, then text. */
export const TEXT = [
  created,
  { type: "response.in_progress", response: { id: "resp_1" } },
  {
    type: "response.output_item.added",
    output_index: 0,
    item: { type: "reasoning", id: "rs_1", summary: [] },
  },
  {
    type: "response.reasoning_summary_text.delta",
    item_id: "rs_1",
    output_index: 0,
    summary_index: 0,
    delta: "Thinking about it.",
  },
  {
    type: "response.output_item.done",
    output_index: 0,
    item: {
      type: "reasoning",
      id: "rs_1",
      summary: [{ type: "summary_text", text: "Thinking about it." }],
      encrypted_content: "gAAAAB-encrypted-1",
    },
  },
  {
    type: "response.output_item.added",
    output_index: 1,
    item: { type: "message", id: "msg_1", role: "assistant", content: [] },
  },
  {
    type: "response.output_text.delta",
    item_id: "msg_1",
    output_index: 1,
    content_index: 0,
    delta: "Hello",
  },
  {
    type: "response.output_text.delta",
    item_id: "msg_1",
    output_index: 1,
    content_index: 0,
    delta: " there.",
  },
  {
    type: "response.output_text.done",
    item_id: "msg_1",
    output_index: 1,
    content_index: 0,
    text: "Hello there.",
  },
  {
    type: "response.output_item.done",
    output_index: 1,
    item: { type: "message", id: "msg_1", role: "assistant" },
  },
  completed(),
];

/** The `function_call` item of the `read_file` call with `args` so far. */
function readCall(args: string): Record<string, unknown> {
  return {
    type: "function_call",
    id: "fc_1",
    call_id: "call_abc",
    name: "read_file",
    arguments: args,
  };
}

/** Reasoning, then a call to read_file with split arguments. */
export const CALL = [
  created,
  {
    type: "response.output_item.added",
    output_index: 0,
    item: { type: "reasoning", id: "rs_2", summary: [] },
  },
  {
    type: "response.output_item.done",
    output_index: 0,
    item: {
      type: "reasoning",
      id: "rs_2",
      summary: [],
      encrypted_content: "gAAAAB-encrypted-2",
    },
  },
  {
    type: "response.output_item.added",
    output_index: 1,
    item: readCall(""),
  },
  {
    type: "response.function_call_arguments.delta",
    item_id: "fc_1",
    output_index: 1,
    delta: '{"path":',
  },
  {
    type: "response.function_call_arguments.delta",
    item_id: "fc_1",
    output_index: 1,
    delta: '"notes.txt"}',
  },
  {
    type: "response.function_call_arguments.done",
    item_id: "fc_1",
    output_index: 1,
    arguments: '{"path":"notes.txt"}',
  },
  {
    type: "response.output_item.done",
    output_index: 1,
    item: readCall('{"path":"notes.txt"}'),
  },
  completed({ input_tokens: 50, output_tokens: 20 }),
];
