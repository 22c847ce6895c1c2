/**
 * Private zod schemas of the workflow subset. Never
 * re-exported: JSR's doc lint refuses public references to zod types.
 *
 * @module
 */
import { z } from "zod";
import { agentRetrySchema } from "../schema/agent.ts";
import type {
  WorkflowAgent,
  WorkflowDocument,
  WorkflowEdge,
  WorkflowNode,
} from "./document.ts";

/** Kebab id: `^[a-z0-9]+(-[a-z0-9]+)*$`. */
export const KEBAB: RegExp = /^[a-z0-9]+(-[a-z0-9]+)*$/;

/** A `{{ secrets.… }}` reference, whitespace-tolerant. */
export const SECRET_REFERENCE: RegExp = /\{\{\s*secrets\s*\./;

const kebab = z.string().regex(KEBAB, "must be a kebab-case id");
const nonEmpty = z.string().min(1, "must not be empty");
const posInt = z.number().int().positive();
const noSecrets = z.string().refine(
  (s) => !SECRET_REFERENCE.test(s),
  "must not reference {{ secrets.* }}",
);

const agentNodeSchema = z.strictObject({
  id: kebab,
  type: z.literal("agent"),
  agent_ref: kebab,
  prompt_template: noSecrets.exactOptional(),
  tools: z.array(nonEmpty).exactOptional(),
  model: nonEmpty.exactOptional(),
  temperature: z.number().min(0).max(2).exactOptional(),
  max_tokens: posInt.exactOptional(),
  system_prompt_append: noSecrets.exactOptional(),
  output_schema: z.record(z.string(), z.unknown()).exactOptional(),
  timeout_ms: posInt.exactOptional(),
  retry: z.exactOptional(agentRetrySchema),
});

const nodeSchema: z.ZodType<WorkflowNode> = z.discriminatedUnion("type", [
  z.strictObject({ id: kebab, type: z.literal("input") }),
  agentNodeSchema,
  z.strictObject({ id: kebab, type: z.literal("output") }),
], { error: 'must be a node of type "input", "agent" or "output"' });

const edgeSchema: z.ZodType<WorkflowEdge> = z.strictObject({
  from: z.string(),
  to: z.string(),
});

const agentSchema: z.ZodType<WorkflowAgent> = z.looseObject({
  id: z.string({ error: "must be a string" }),
});

/** The strict document schema; cross-node rules live in `parse.ts`. */
export const documentSchema: z.ZodType<WorkflowDocument> = z.strictObject({
  schema_version: z.literal("1.0", { error: 'must be the string "1.0"' }),
  workflow: z.strictObject({
    id: kebab,
    name: z.string().exactOptional(),
    description: z.string().exactOptional(),
    metadata: z.record(z.string(), z.unknown()).exactOptional(),
    agents: z.array(agentSchema).exactOptional(),
    nodes: z.array(nodeSchema),
    edges: z.array(edgeSchema),
  }),
});
