/**
 * The argument errors the model reads back from each built-in tool: the
 * key path and the message of every problem, pinned to the texts of the
 * release before the schemas moved into the tool files.
 */
import assert from "node:assert/strict";
import { allBuiltinTools } from "../../../tools/builtin/all.ts";
import { createToolRegistry } from "../../../tools/registry_impl.ts";
import type { ValidationIssue } from "../../../schema/issues.ts";
import {
  grantAll,
  makeContext,
  messageOf,
  recordingHost,
} from "../_helpers.ts";

const byId = new Map(allBuiltinTools().map((t) => [t.id, t]));

function issues(id: string, raw: unknown): ValidationIssue[] | "ok" {
  const tool = byId.get(id);
  assert.ok(tool !== undefined, id);
  const r = tool.parse(raw);
  assert.ok(!(r instanceof Promise), `${id}: parse is synchronous`);
  return r.ok ? "ok" : r.error;
}

const ROWS: [string, unknown, ValidationIssue[]][] = [
  ["read_file", {}, [{
    "path": "path",
    "message": "Invalid input: expected string, received undefined",
  }]],
  ["read_file", { "path": "" }, [{
    "path": "path",
    "message": "Too small: expected string to have >=1 characters",
  }]],
  ["read_file", { "path": 1 }, [{
    "path": "path",
    "message": "Invalid input: expected string, received number",
  }]],
  ["read_file", { "path": "a", "glob": "yes" }, [{
    "path": "glob",
    "message": "Invalid input: expected boolean, received string",
  }]],
  ["read_file", { "path": "a", "extra": 1 }, [{
    "path": "extra",
    "message": "unknown key",
  }]],
  ["read_file", [], [{
    "path": "",
    "message": "Invalid input: expected object, received array",
  }]],
  ["read_file", "x", [{
    "path": "",
    "message": "Invalid input: expected object, received string",
  }]],
  ["read_file", null, [{
    "path": "",
    "message": "Invalid input: expected object, received null",
  }]],
  ["list_directory", { "path": ".", "depth": 2 }, [{
    "path": "depth",
    "message": "unknown key",
  }]],
  ["list_directory", { "path": ".", "recursive": 1 }, [{
    "path": "recursive",
    "message": "Invalid input: expected boolean, received number",
  }]],
  ["list_directory", { "path": ".", "glob": "" }, [{
    "path": "glob",
    "message": "Too small: expected string to have >=1 characters",
  }]],
  ["list_directory", {}, [{
    "path": "path",
    "message": "Invalid input: expected string, received undefined",
  }]],
  ["git_status", { "command": "push" }, [{
    "path": "command",
    "message": 'Invalid option: expected one of "status"|"log"|"diff"',
  }]],
  ["git_status", { "args": [1] }, [{
    "path": "args[0]",
    "message": "Invalid input: expected string, received number",
  }]],
  ["git_status", { "extra": true }, [{
    "path": "extra",
    "message": "unknown key",
  }]],
  ["write_file", { "path": "a" }, [{
    "path": "content",
    "message": "Invalid input: expected string, received undefined",
  }]],
  ["write_file", { "path": "a", "content": 1 }, [{
    "path": "content",
    "message": "Invalid input: expected string, received number",
  }]],
  ["write_file", { "path": "a", "content": "x", "mode": 511 }, [{
    "path": "mode",
    "message": "unknown key",
  }]],
  [
    "write_file",
    { "path": "a", "content": "", "append": "y", "createDirs": 0 },
    [{
      "path": "append",
      "message": "Invalid input: expected boolean, received string",
    }, {
      "path": "createDirs",
      "message": "Invalid input: expected boolean, received number",
    }],
  ],
  ["run_command", { "command": "git status" }, [{
    "path": "command",
    "message":
      "command is the program name only (no spaces); put arguments in args",
  }]],
  ["run_command", { "command": "" }, [{
    "path": "command",
    "message": "Too small: expected string to have >=1 characters",
  }]],
  ["run_command", { "command": "git", "args": "status" }, [{
    "path": "args",
    "message": "Invalid input: expected array, received string",
  }]],
  ["run_command", { "command": "git", "args": ["a\u0000b"] }, [{
    "path": "args[0]",
    "message": "NUL characters are not allowed",
  }]],
  ["run_command", { "command": "make", "env": { "LD_PRELOAD": "x" } }, [{
    "path": "env.LD_PRELOAD",
    "message": "environment variable is refused (set in configuration)",
  }]],
  ["run_command", { "command": "make", "env": { "A=B": "x" } }, [{
    "path": "env.A=B",
    "message": "invalid environment variable name",
  }]],
  ["run_command", { "command": "make", "env": { "CI": "a\u0000" } }, [{
    "path": "env.CI",
    "message": "NUL characters are not allowed",
  }]],
  ["run_command", { "command": "make", "timeoutMs": 0 }, [{
    "path": "timeoutMs",
    "message": "Too small: expected number to be >=1",
  }]],
  ["run_command", { "command": "make", "timeoutMs": 1.5 }, [{
    "path": "timeoutMs",
    "message": "Invalid input: expected int, received number",
  }]],
  ["run_command", { "command": "make", "timeoutMs": 999999 }, [{
    "path": "timeoutMs",
    "message": "Too big: expected number to be <=120000",
  }]],
  ["run_command", {}, [{
    "path": "command",
    "message": "Invalid input: expected string, received undefined",
  }]],
  ["git_commit", {}, [{
    "path": "message",
    "message": "Invalid input: expected string, received undefined",
  }]],
  ["git_commit", { "message": "" }, [{
    "path": "message",
    "message": "Too small: expected string to have >=1 characters",
  }]],
  ["git_commit", { "message": "a\u0000" }, [{
    "path": "message",
    "message": "NUL characters are not allowed",
  }]],
  ["git_commit", { "message": "m", "files": ["-a"] }, [{
    "path": "files[0]",
    "message": "file names may not start with '-'",
  }]],
  ["git_commit", { "message": "m", "files": [""] }, [{
    "path": "files[0]",
    "message": "Too small: expected string to have >=1 characters",
  }]],
  ["git_commit", { "message": "m", "files": "a" }, [{
    "path": "files",
    "message": "Invalid input: expected array, received string",
  }]],
  ["http_request", {}, [{
    "path": "url",
    "message": "Invalid input: expected string, received undefined",
  }]],
  ["http_request", { "url": "" }, [{
    "path": "url",
    "message": "Too small: expected string to have >=1 characters",
  }]],
  ["http_request", { "url": "https://e.com/", "body": "x" }, [{
    "path": "body",
    "message": "a GET request cannot have a body",
  }]],
  ["http_request", { "url": "https://e.com/", "method": "PATCH" }, [{
    "path": "method",
    "message": 'Invalid option: expected one of "GET"|"POST"|"PUT"|"DELETE"',
  }]],
  ["http_request", { "url": "https://e.com/", "headers": { "a": 1 } }, [{
    "path": "headers.a",
    "message": "Invalid input: expected string, received number",
  }]],
  ["http_request", { "url": "https://e.com/", "method": "GET", "body": "x" }, [{
    "path": "body",
    "message": "a GET request cannot have a body",
  }]],
  ["http_request", { "url": 5 }, [{
    "path": "url",
    "message": "Invalid input: expected string, received number",
  }]],
];

Deno.test("argument errors name the key path and the problem", () => {
  for (const [id, raw, want] of ROWS) {
    assert.deepEqual(issues(id, raw), want, `${id} ${JSON.stringify(raw)}`);
  }
});

Deno.test("every problem of one call is named, not only the first", () => {
  assert.deepEqual(
    issues("write_file", { path: "", content: 1, extra: true }),
    [
      {
        path: "path",
        message: "Too small: expected string to have >=1 characters",
      },
      {
        path: "content",
        message: "Invalid input: expected string, received number",
      },
      { path: "extra", message: "unknown key" },
    ],
  );
});

Deno.test("valid arguments come back as given", () => {
  const run = { command: "git", args: ["status"], env: { LANG: "C" } };
  assert.deepEqual(byId.get("run_command")?.parse(run), {
    ok: true,
    value: run,
  });
  const get = { url: "https://example.com/", headers: { accept: "text/*" } };
  assert.deepEqual(byId.get("http_request")?.parse(get), {
    ok: true,
    value: get,
  });
});

Deno.test("the pipeline feeds the issues back as one validation message", async () => {
  const { host, calls } = recordingHost();
  const registry = createToolRegistry({
    tools: allBuiltinTools(),
    host,
    context: { workingDir: "/ws", fsScopeTier: "sandboxed" },
    permissions: grantAll,
  });
  const outcome = await registry.dispatch(
    { id: "c", name: "write_file", args: { path: "", content: 1 } },
    makeContext({ granted: ["write_file"] }).ctx,
  );
  assert.equal(outcome.kind, "feedback");
  assert.equal(
    messageOf(outcome),
    "Invalid arguments for write_file: path: Too small: expected string to have >=1 characters; content: Invalid input: expected string, received number",
  );
  assert.deepEqual(calls, []);
});
