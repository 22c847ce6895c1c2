/**
 * The server's contracts: request bodies, the error body, and the events
 * the server adds to a session's stream. One zod schema each; the
 * OpenAPI document is generated from them.
 *
 * @module
 */
import { z } from "zod";

/** Approval modes a session may start in. */
export const MODES = ["ask", "plan", "accept-edits", "auto"] as const;

/** `POST /v1/sessions`. */
export const createSessionBody = z.strictObject({
  agent: z.string().min(1).max(4096).optional().describe(
    "An agent id or a path inside the project; absent: the built-in chat agent",
  ),
  model: z.string().min(1).max(200).optional(),
  provider: z.string().min(1).max(100).optional(),
  mode: z.enum(MODES).default("ask"),
  context: z.strictObject({
    variables: z.record(z.string().max(200), z.string().max(10_000))
      .optional(),
  }).optional().describe("Extra system-prompt variables"),
});

/** A parsed `POST /v1/sessions` body. */
export type CreateSessionBody = z.infer<typeof createSessionBody>;

/** `POST /v1/sessions/:id/messages`. */
export const messageBody = z.strictObject({
  text: z.string().min(1).max(200_000),
  idempotencyKey: z.string().min(1).max(200).optional(),
});

/** `POST /v1/sessions/:id/approvals/:requestId`. */
export const approvalBody = z.strictObject({
  decision: z.enum(["once", "always", "reject"]),
});

/** `POST /v1/tickets`: a stream ticket for one session. */
export const ticketBody = z.strictObject({
  sessionId: z.string().min(1).max(200),
});

/** Every error answer: the `--json` error line's shape. */
export const errorBody = z.strictObject({
  type: z.literal("error"),
  code: z.string(),
  message: z.string(),
});

/** An error answer. */
export type ErrorBody = z.infer<typeof errorBody>;

/** `202` to a message: the turn's first event id and the cursor before it. */
export const acceptedBody = z.strictObject({
  sessionId: z.string(),
  eventId: z.string().describe("The id the turn's first event gets"),
  after: z.string().describe("The cursor just before the turn (?after=)"),
});

/** `201` to a new session. */
export const createdBody = z.strictObject({
  sessionId: z.string(),
  lastEventId: z.string(),
});

/** `POST /v1/tickets` answer. */
export const ticketAnswer = z.strictObject({
  ticket: z.string(),
  expiresInMs: z.number(),
});

/** A governed action waiting for an answer. */
export const pendingApproval = z.strictObject({
  requestId: z.string(),
  toolId: z.string(),
  action: z.string(),
  preview: z.strictObject({
    path: z.string().optional(),
    command: z.string().optional(),
    host: z.string().optional(),
  }),
  expiresAt: z.string(),
});

/** A pending approval. */
export type PendingApproval = z.infer<typeof pendingApproval>;

/** `GET /v1/sessions/:id` and the body of `server:resync`. */
export const sessionState = z.strictObject({
  sessionId: z.string(),
  session: z.record(z.string(), z.unknown()).nullable().describe(
    "The chat-show --json record (totals and transcript); null before it is stored",
  ),
  running: z.boolean(),
  pendingApprovals: z.array(pendingApproval),
  lastEventId: z.string(),
});

/** A session's state. */
export type SessionState = z.infer<typeof sessionState>;

const serverEnvelope = {
  sessionId: z.string(),
  timestamp: z.string(),
};

/** The events the server adds to a session's stream. */
export const serverEvent = z.discriminatedUnion("type", [
  z.strictObject({ type: z.literal("server:heartbeat"), ...serverEnvelope }),
  z.strictObject({
    type: z.literal("server:resync"),
    ...serverEnvelope,
    state: sessionState,
  }),
  z.strictObject({
    type: z.literal("server:approval_requested"),
    ...serverEnvelope,
    approval: pendingApproval,
  }),
  z.strictObject({
    type: z.literal("server:approval_resolved"),
    ...serverEnvelope,
    requestId: z.string(),
    decision: z.enum(["once", "always", "reject"]),
    by: z.enum(["client", "timeout", "abort"]),
  }),
  z.strictObject({
    type: z.literal("server:idle"),
    ...serverEnvelope,
    outcome: z.enum(["completed", "failed", "aborted", "cancelled"]),
  }),
]);

/** A server event. */
export type ServerEvent = z.infer<typeof serverEvent>;
