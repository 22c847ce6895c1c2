/**
 * The Anthropic Messages stream in its wire format, piece by piece, for
 * loopback servers in tests and benches: the message start, a text block,
 * its deltas, and the end of the message.
 *
 * @module
 */

/** One SSE event: `event:` and its JSON `data:`. */
export function anthropicEvent(event: string, data: unknown): string {
  return `event: ${event}\ndata: ${JSON.stringify(data)}\n\n`;
}

/** `message_start` of a `claude-sonnet-4-6` message (5 in, 1 out so far). */
export const ANTHROPIC_START: string = anthropicEvent("message_start", {
  type: "message_start",
  message: {
    id: "msg_1",
    type: "message",
    role: "assistant",
    model: "claude-sonnet-4-6",
    content: [],
    usage: { input_tokens: 5, output_tokens: 1 },
  },
});

/** `content_block_start` of an empty text block at index 0. */
export const ANTHROPIC_TEXT_BLOCK: string = anthropicEvent(
  "content_block_start",
  {
    type: "content_block_start",
    index: 0,
    content_block: { type: "text", text: "" },
  },
);

/** A `text_delta` of the block at index 0. */
export function anthropicDelta(text: string): string {
  return anthropicEvent("content_block_delta", {
    type: "content_block_delta",
    index: 0,
    delta: { type: "text_delta", text },
  });
}

/** The block's stop, `end_turn` with `outputTokens`, and `message_stop`. */
export function anthropicEnd(outputTokens: number): string {
  return anthropicEvent("content_block_stop", {
    type: "content_block_stop",
    index: 0,
  }) +
    anthropicEvent("message_delta", {
      type: "message_delta",
      delta: { stop_reason: "end_turn" },
      usage: { output_tokens: outputTokens },
    }) + anthropicEvent("message_stop", { type: "message_stop" });
}
