/**
 * The secret screen on what leaves a session: one streamed-token event
 * (the most frequent event of a chat) through `redactStrings`, with one
 * configured key and no secret in it.
 *
 *   deno bench bench/redaction_bench.ts
 */
import { createSecretScreen, redactStrings } from "../host/secrets.ts";

const { redact } = createSecretScreen(["sk-configured-key-123456789"]);
const EVENT = {
  type: "agent:token",
  sessionId: "0b0c8f2e-9a7e-4c1f-8d3b-1f2e3a4b5c6d",
  timestamp: "2026-12-03T17:50:00.000Z",
  sequenceNumber: 12,
  delta: "An answer of a few words, streamed.",
  nodeId: "chat",
};

Deno.bench("redactStrings: one agent:token event, nothing to redact", () => {
  redactStrings(EVENT, redact);
});
