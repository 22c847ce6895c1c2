/**
 * The JSON Schema each built-in advertises, generated from its zod schema:
 * pinned whole (required keys, types, enums, item types, minimum lengths,
 * descriptions, `additionalProperties: false`, no config-only key, no
 * `$schema` marker), and built once per process.
 */
import assert from "node:assert/strict";
import { allBuiltinTools } from "../../../tools/builtin/all.ts";

const byId = new Map(allBuiltinTools().map((t) => [t.id, t]));

const str = (description: string) => ({
  type: "string",
  minLength: 1,
  description,
});

const WANT: Record<string, unknown> = {
  read_file: {
    type: "object",
    additionalProperties: false,
    properties: {
      path: str("Workspace-relative path, or a glob pattern when glob is true"),
      glob: { type: "boolean", description: "Treat path as a glob pattern" },
    },
    required: ["path"],
  },
  list_directory: {
    type: "object",
    additionalProperties: false,
    properties: {
      path: str("Workspace-relative directory"),
      recursive: { type: "boolean", description: "Include subdirectories" },
      glob: str("Filter pattern (*, ?, **)"),
    },
    required: ["path"],
  },
  git_status: {
    type: "object",
    additionalProperties: false,
    properties: {
      command: {
        type: "string",
        enum: ["status", "log", "diff"],
        description: "git subcommand (default status)",
      },
    },
  },
  write_file: {
    type: "object",
    additionalProperties: false,
    properties: {
      path: str("Workspace-relative path"),
      content: { type: "string", description: "Text to write (UTF-8)" },
      append: {
        type: "boolean",
        description: "Append to the file instead of replacing it",
      },
      createDirs: {
        type: "boolean",
        description: "Create missing parent directories",
      },
    },
    required: ["path", "content"],
  },
  run_command: {
    type: "object",
    additionalProperties: false,
    properties: {
      command: str("Program name (no spaces), e.g. git"),
      args: {
        type: "array",
        items: { type: "string" },
        description: 'Arguments, one per element, e.g. ["status"]',
      },
    },
    required: ["command"],
  },
  git_commit: {
    type: "object",
    additionalProperties: false,
    properties: {
      message: str("Commit message"),
      files: {
        type: "array",
        items: { type: "string", minLength: 1 },
        description: "Workspace-relative paths to commit (default: the index)",
      },
    },
    required: ["message"],
  },
  http_request: {
    type: "object",
    additionalProperties: false,
    properties: {
      url: str("Absolute https URL"),
      method: {
        type: "string",
        enum: ["GET", "POST", "PUT", "DELETE"],
        description: "HTTP method (default GET)",
      },
      headers: {
        type: "object",
        propertyNames: { type: "string" },
        additionalProperties: { type: "string" },
        description: "Request headers",
      },
      body: { type: "string", description: "Request body (not for GET)" },
    },
    required: ["url"],
  },
};

Deno.test("each built-in advertises the schema generated from its zod schema", () => {
  assert.deepEqual([...byId.keys()].sort(), Object.keys(WANT).sort());
  for (const [id, want] of Object.entries(WANT)) {
    assert.deepEqual(byId.get(id)?.llmParams, want, id);
  }
});

Deno.test("config-only keys are parsed but never advertised", () => {
  for (const tool of byId.values()) {
    const props = Object.keys(tool.llmParams["properties"] as object);
    for (const key of tool.configOnly ?? []) {
      assert.ok(!props.includes(key), `${tool.id}.${key}`);
    }
  }
  assert.deepEqual(byId.get("run_command")?.configOnly, [
    "cwd",
    "timeoutMs",
    "env",
  ]);
  assert.deepEqual(byId.get("git_status")?.configOnly, ["args"]);
  assert.equal(
    byId.get("run_command")?.parse({ command: "git", timeoutMs: 5 }).ok,
    true,
  );
});

Deno.test("the advertised schema is built once and reused", () => {
  for (const t of byId.values()) {
    assert.equal(t.llmParams, t.llmParams, t.id);
  }
});
