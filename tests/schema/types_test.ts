/**
 * The hand-written public types equal what zod infers from their schemas
 * (checked by the type checker: a mismatch fails `deno check`).
 */
import assert from "node:assert/strict";
import type { z } from "zod";
import type { Agent, agentSchema } from "../../schema/agent.ts";
import type {
  SessionContext,
  sessionContextSchema,
} from "../../schema/context.ts";
import type {
  SessionContentPart,
  sessionContentPartSchema,
  SessionMessage,
  sessionMessageSchema,
} from "../../schema/message.ts";
import type {
  parseSessionEvent,
  SessionEvent,
  SessionEventDraft,
  sessionEventSchema,
} from "../../schema/event.ts";
import type { StreamChunk } from "../../llm/chunk.ts";
import type { streamChunkSchema } from "../../llm/_chunk_schema.ts";

type Equal<A, B> = (<T>() => T extends A ? 1 : 2) extends
  (<T>() => T extends B ? 1 : 2) ? true
  : false;

type ParsedEvent = Extract<
  ReturnType<typeof parseSessionEvent>,
  { ok: true }
>["value"];
type Boundary<E> = Extract<
  E,
  { type: "session:compacted" | "session:trimmed" }
>;

Deno.test("schema types equal zod's inference", () => {
  const checks: [
    Equal<z.infer<typeof agentSchema>, Agent>,
    Equal<z.infer<typeof sessionContextSchema>, SessionContext>,
    Equal<z.infer<typeof sessionContentPartSchema>, SessionContentPart>,
    Equal<z.infer<typeof sessionMessageSchema>, SessionMessage>,
    Equal<z.infer<typeof sessionEventSchema>, ParsedEvent>,
    Equal<z.infer<typeof streamChunkSchema>, StreamChunk>,
    // Producers always set keptTurnCount; only the parser tolerates its
    // absence (older events).
    Equal<Boundary<SessionEventDraft>["keptTurnCount"], number>,
    Equal<Boundary<SessionEvent>["keptTurnCount"], number>,
    Equal<Boundary<ParsedEvent>["keptTurnCount"], number | undefined>,
  ] = [true, true, true, true, true, true, true, true, true];
  assert.ok(checks.every((c) => c));
});
