/**
 * The OpenAPI document of the server, generated from the zod schemas of
 * `wire.ts` and the `--json` event schema (never written by hand).
 *
 * @module
 */
import { z } from "zod";
import { sessionEventSchema } from "../schema/event.ts";
import {
  acceptedBody,
  approvalBody,
  createdBody,
  createSessionBody,
  errorBody,
  messageBody,
  serverEvent,
  sessionState,
  ticketAnswer,
  ticketBody,
} from "./wire.ts";

function schemaOf(schema: z.ZodType, io: "input" | "output"): unknown {
  const { $schema: _, ...rest } = z.toJSONSchema(schema, {
    target: "openapi-3.0",
    io,
    unrepresentable: "any",
  }) as Record<string, unknown>;
  return rest;
}

const ref = (name: string): { $ref: string } => ({
  $ref: `#/components/schemas/${name}`,
});

function json(name: string): Record<string, unknown> {
  return { content: { "application/json": { schema: ref(name) } } };
}

function answers(
  ok: Record<string, unknown>,
  errors: readonly number[],
): Record<string, unknown> {
  const out: Record<string, unknown> = { ...ok };
  for (const status of [401, 403, ...errors]) {
    out[String(status)] = { description: "Error", ...json("Error") };
  }
  return out;
}

const idParam = {
  name: "id",
  in: "path",
  required: true,
  schema: { type: "string" },
};

/**
 * Builds the OpenAPI 3.0 document.
 *
 * @param version The program's version.
 * @returns The document.
 */
export function openApiDocument(version: string): Record<string, unknown> {
  const bearer = [{ bearer: [] }];
  return {
    openapi: "3.0.3",
    info: { title: "relavium serve", version },
    components: {
      securitySchemes: { bearer: { type: "http", scheme: "bearer" } },
      schemas: {
        Error: schemaOf(errorBody, "output"),
        CreateSession: schemaOf(createSessionBody, "input"),
        Created: schemaOf(createdBody, "output"),
        Message: schemaOf(messageBody, "input"),
        Accepted: schemaOf(acceptedBody, "output"),
        Approval: schemaOf(approvalBody, "input"),
        TicketRequest: schemaOf(ticketBody, "input"),
        Ticket: schemaOf(ticketAnswer, "output"),
        SessionState: schemaOf(sessionState, "output"),
        SessionEvent: schemaOf(sessionEventSchema, "output"),
        ServerEvent: schemaOf(serverEvent, "output"),
      },
    },
    security: bearer,
    paths: {
      "/v1/health": {
        get: { security: [], responses: { "200": { description: "Up" } } },
      },
      "/v1/tickets": {
        post: {
          summary: "A single-use stream ticket for one session (30 s)",
          requestBody: json("TicketRequest"),
          responses: answers({ "200": json("Ticket") }, [400]),
        },
      },
      "/v1/sessions": {
        get: {
          summary: "Stored sessions (chat-list --json records)",
          responses: answers({ "200": { description: "Records" } }, []),
        },
        post: {
          summary: "Start a session",
          requestBody: json("CreateSession"),
          responses: answers({ "201": json("Created") }, [400, 404]),
        },
      },
      "/v1/sessions/{id}": {
        parameters: [idParam],
        get: {
          summary: "Record, transcript, running, pending approvals",
          responses: answers({ "200": json("SessionState") }, [404]),
        },
        delete: {
          summary: "Soft-delete a session",
          responses: answers({ "200": { description: "Deleted" } }, [
            404,
            409,
          ]),
        },
      },
      "/v1/sessions/{id}/messages": {
        parameters: [idParam],
        post: {
          summary: "Send a message; the turn streams on /events",
          requestBody: json("Message"),
          responses: answers({ "202": json("Accepted") }, [
            400,
            404,
            409,
            413,
            423,
          ]),
        },
      },
      "/v1/sessions/{id}/abort": {
        parameters: [idParam],
        post: {
          summary: "Abort the running turn",
          responses: answers({ "200": { description: "Done" } }, [404]),
        },
      },
      "/v1/sessions/{id}/cancel": {
        parameters: [idParam],
        post: {
          summary: "End the live session (it stays resumable)",
          responses: answers({ "200": { description: "Done" } }, [404]),
        },
      },
      "/v1/sessions/{id}/approvals/{requestId}": {
        parameters: [idParam, { ...idParam, name: "requestId" }],
        post: {
          summary: "Answer a waiting approval",
          requestBody: json("Approval"),
          responses: answers({ "200": { description: "Answered" } }, [
            400,
            404,
            423,
          ]),
        },
      },
      "/v1/sessions/{id}/export": {
        parameters: [idParam],
        get: {
          summary: "The session as a workflow YAML",
          responses: answers({
            "200": { content: { "application/yaml": {} } },
          }, [404]),
        },
      },
      "/v1/sessions/{id}/events": {
        parameters: [
          idParam,
          { name: "after", in: "query", schema: { type: "string" } },
          { name: "until", in: "query", schema: { enum: ["idle"] } },
          { name: "ticket", in: "query", schema: { type: "string" } },
          { name: "Last-Event-ID", in: "header", schema: { type: "string" } },
        ],
        get: {
          summary:
            "Server-sent events: SessionEvent and ServerEvent frames with ids",
          responses: answers({
            "200": { content: { "text/event-stream": {} } },
          }, [404, 429]),
        },
      },
    },
  };
}
