/**
 * Generates `schema/events.v1.schema.json`, the JSON Schema of one line of
 * the `--json` event stream, from `sessionEventSchema`. Run with
 * `deno task schema:events`; a test regenerates it and compares.
 *
 * @module
 */
import { z } from "zod";
import { sessionEventSchema } from "../schema/event.ts";

/** Where the schema is checked in, relative to the package root. */
export const EVENTS_SCHEMA_PATH = "schema/events.v1.schema.json";

/**
 * The event stream's JSON Schema (draft 2020-12), as checked-in text.
 *
 * @returns The schema, pretty-printed with a final newline.
 */
export function eventsSchemaText(): string {
  const generated = z.toJSONSchema(sessionEventSchema, {
    target: "draft-2020-12",
    io: "output",
  });
  const schema = {
    $schema: generated.$schema,
    $id: "https://jsr.io/@relavium/session/schema/events.v1.schema.json",
    title: "relavium --json event (v1)",
    description:
      "One line of the `--json` event stream. Generated from sessionEventSchema " +
      "by `deno task schema:events`; do not edit. Consumers should ignore " +
      "event types this version does not list.",
    ...Object.fromEntries(
      Object.entries(generated).filter(([k]) => k !== "$schema"),
    ),
  };
  return `${JSON.stringify(schema, null, 2)}\n`;
}

if (import.meta.main) {
  const url = new URL(`../${EVENTS_SCHEMA_PATH}`, import.meta.url);
  await Deno.writeTextFile(url, eventsSchemaText());
  // deno-lint-ignore no-console
  console.log(`wrote ${EVENTS_SCHEMA_PATH}`);
}
