/**
 * The built-in tools' argument contract: the JSON Schema each advertises
 * (generated from its zod schema, built once) and the argument errors the
 * model reads back.
 */
import assert from "node:assert/strict";
import { allBuiltinTools } from "../../../tools/builtin/all.ts";
import type { ValidationIssue } from "../../../schema/issues.ts";

const byId = new Map(allBuiltinTools().map((t) => [t.id, t]));

function tool(id: string) {
  const t = byId.get(id);
  assert.ok(t !== undefined, id);
  return t;
}

function issues(id: string, raw: unknown): ValidationIssue[] {
  const r = tool(id).parse(raw);
  assert.ok(!(r instanceof Promise), `${id}: parse is synchronous`);
  assert.equal(r.ok, false, JSON.stringify(raw));
  return r.ok ? [] : r.error;
}

const ESSENTIALS: Record<
  string,
  { required: string[]; types: Record<string, string> }
> = {
  read_file: { required: ["path"], types: { path: "string", glob: "boolean" } },
  list_directory: {
    required: ["path"],
    types: { path: "string", recursive: "boolean", glob: "string" },
  },
  git_status: { required: [], types: { command: "string" } },
  write_file: {
    required: ["path", "content"],
    types: {
      path: "string",
      content: "string",
      append: "boolean",
      createDirs: "boolean",
    },
  },
  run_command: {
    required: ["command"],
    types: { command: "string", args: "array" },
  },
  git_commit: {
    required: ["message"],
    types: { message: "string", files: "array" },
  },
  http_request: {
    required: ["url"],
    types: {
      url: "string",
      method: "string",
      headers: "object",
      body: "string",
    },
  },
};

Deno.test("each built-in advertises its generated strict schema", () => {
  assert.deepEqual([...byId.keys()].sort(), Object.keys(ESSENTIALS).sort());
  for (const [id, want] of Object.entries(ESSENTIALS)) {
    const s = tool(id).llmParams;
    assert.equal(s["type"], "object", id);
    assert.equal(s["additionalProperties"], false, id);
    assert.equal("$schema" in s, false, id);
    assert.deepEqual(s["required"] ?? [], want.required, id);
    const props = s["properties"] as Record<string, Record<string, unknown>>;
    assert.deepEqual(
      Object.fromEntries(Object.entries(props).map(([k, p]) => [k, p["type"]])),
      want.types,
      id,
    );
    for (const [key, p] of Object.entries(props)) {
      assert.equal(typeof p["description"], "string", `${id}.${key}`);
    }
  }
});

Deno.test("the advertised schemas keep enums and item types", () => {
  const props = (id: string) =>
    tool(id).llmParams["properties"] as Record<string, Record<string, unknown>>;
  assert.deepEqual(props("git_status")["command"]?.["enum"], [
    "status",
    "log",
    "diff",
  ]);
  assert.deepEqual(props("http_request")["method"]?.["enum"], [
    "GET",
    "POST",
    "PUT",
    "DELETE",
  ]);
  assert.deepEqual(props("http_request")["headers"]?.["additionalProperties"], {
    type: "string",
  });
  assert.deepEqual(props("run_command")["args"]?.["items"], { type: "string" });
});

Deno.test("the advertised schema is built once and reused", () => {
  for (const t of byId.values()) {
    assert.equal(t.llmParams, t.llmParams, t.id);
  }
});

Deno.test("argument errors name the key and the problem", () => {
  const rows: [string, unknown, ValidationIssue[]][] = [
    ["read_file", { path: "a", mode: "x" }, [{
      path: "mode",
      message: "unknown key",
    }]],
    ["read_file", { path: "" }, [{
      path: "path",
      message: "Too small: expected string to have >=1 characters",
    }]],
    ["read_file", { path: 3 }, [{
      path: "path",
      message: "Invalid input: expected string, received number",
    }]],
    ["read_file", {}, [{
      path: "path",
      message: "Invalid input: expected string, received undefined",
    }]],
    ["write_file", { path: "a" }, [{
      path: "content",
      message: "Invalid input: expected string, received undefined",
    }]],
    ["list_directory", { path: ".", recursive: "yes" }, [{
      path: "recursive",
      message: "Invalid input: expected boolean, received string",
    }]],
    ["git_status", { command: "push" }, [{
      path: "command",
      message: 'Invalid option: expected one of "status"|"log"|"diff"',
    }]],
    ["run_command", { command: "git status" }, [{
      path: "command",
      message:
        "command is the program name only (no spaces); put arguments in args",
    }]],
    ["run_command", { command: "git", args: ["a\u0000"] }, [{
      path: "args[0]",
      message: "NUL characters are not allowed",
    }]],
    ["run_command", { command: "make", env: { LD_PRELOAD: "x" } }, [{
      path: "env.LD_PRELOAD",
      message: "environment variable is refused (set in configuration)",
    }]],
    ["run_command", { command: "make", env: { "A=B": "x" } }, [{
      path: "env.A=B",
      message: "invalid environment variable name",
    }]],
    ["run_command", { command: "git", timeoutMs: 0 }, [{
      path: "timeoutMs",
      message: "Too small: expected number to be >=1",
    }]],
    ["git_commit", { message: "m", files: ["-a"] }, [{
      path: "files[0]",
      message: "file names may not start with '-'",
    }]],
    ["http_request", { url: "https://example.com/", body: "x" }, [{
      path: "body",
      message: "a GET request cannot have a body",
    }]],
    ["http_request", { url: "https://example.com/", method: "PATCH" }, [{
      path: "method",
      message: 'Invalid option: expected one of "GET"|"POST"|"PUT"|"DELETE"',
    }]],
  ];
  for (const [id, raw, want] of rows) {
    assert.deepEqual(issues(id, raw), want, `${id} ${JSON.stringify(raw)}`);
  }
});

Deno.test("every problem of one call is named, not only the first", () => {
  assert.deepEqual(
    issues("write_file", { path: "", content: 1, extra: true }).map((i) =>
      i.path
    ),
    ["path", "content", "extra"],
  );
});

Deno.test("valid arguments come back as given", () => {
  const raw = { command: "git", args: ["status"], env: { LANG: "C" } };
  assert.deepEqual(tool("run_command").parse(raw), { ok: true, value: raw });
  const get = { url: "https://example.com/", headers: { accept: "text/*" } };
  assert.deepEqual(tool("http_request").parse(get), { ok: true, value: get });
});
