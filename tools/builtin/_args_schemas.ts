/**
 * Private: the strict zod schemas of the built-in tools' arguments (the
 * contract for each `parse`). Loaded only when an argument object is not
 * plainly valid (`_args_quick.ts`), to name every problem.
 *
 * @module
 */
import { z } from "zod";
import type { ReadFileArgs } from "./read_file.ts";
import type { ListDirectoryArgs } from "./list_directory.ts";
import type { WriteFileArgs } from "./write_file.ts";
import type { RunCommandArgs } from "./run_command.ts";
import type { GitStatusArgs } from "./git_status.ts";
import type { GitCommitArgs } from "./git_commit.ts";
import type { HttpRequestArgs } from "./http_request.ts";
import { isRefusedEnvKey } from "../sandbox/child_env.ts";
import { DEFAULT_TOOL_LIMITS } from "../sandbox/limits.ts";

// deno-lint-ignore no-control-regex
const NUL = /\u0000/;

/**
 * `read_file`: the complete effective arguments.
 *
 * @example
 * ```ts
 * import { readFileArgsSchema } from "./_args_schemas.ts";
 * import assert from "node:assert/strict";
 * assert.equal(readFileArgsSchema.safeParse({ path: "a.md" }).success, true);
 * assert.equal(readFileArgsSchema.safeParse({ path: "a.md", extra: 1 }).success, false);
 * ```
 */
export const readFileArgsSchema: z.ZodType<ReadFileArgs> = z.strictObject({
  path: z.string().min(1),
  glob: z.boolean().exactOptional(),
});

/**
 * `list_directory`: the complete effective arguments.
 *
 * @example
 * ```ts
 * import { listDirectoryArgsSchema } from "./_args_schemas.ts";
 * import assert from "node:assert/strict";
 * assert.equal(listDirectoryArgsSchema.safeParse({ path: ".", recursive: true }).success, true);
 * assert.equal(listDirectoryArgsSchema.safeParse({ path: "" }).success, false);
 * ```
 */
export const listDirectoryArgsSchema: z.ZodType<ListDirectoryArgs> = z
  .strictObject({
    path: z.string().min(1),
    recursive: z.boolean().exactOptional(),
    glob: z.string().min(1).exactOptional(),
  });

/**
 * `write_file`: the complete effective arguments.
 *
 * @example
 * ```ts
 * import { writeFileArgsSchema } from "./_args_schemas.ts";
 * import assert from "node:assert/strict";
 * assert.equal(writeFileArgsSchema.safeParse({ path: "a.md", content: "x" }).success, true);
 * assert.equal(writeFileArgsSchema.safeParse({ path: "a.md" }).success, false);
 * ```
 */
export const writeFileArgsSchema: z.ZodType<WriteFileArgs> = z.strictObject({
  path: z.string().min(1),
  content: z.string(),
  append: z.boolean().exactOptional(),
  createDirs: z.boolean().exactOptional(),
});

/**
 * `run_command`: the complete effective arguments.
 *
 * @example
 * ```ts
 * import { runCommandArgsSchema } from "./_args_schemas.ts";
 * import assert from "node:assert/strict";
 * assert.equal(runCommandArgsSchema.safeParse({ command: "git", args: ["status"] }).success, true);
 * assert.equal(runCommandArgsSchema.safeParse({ command: "git status" }).success, false);
 * ```
 */
export const runCommandArgsSchema: z.ZodType<RunCommandArgs> = z.strictObject({
  command: z.string().min(1).refine((c) => !/\s/.test(c) && !NUL.test(c), {
    message:
      "command is the program name only (no spaces); put arguments in args",
  }),
  args: z.array(
    z.string().refine((a) => !NUL.test(a), "NUL characters are not allowed"),
  ).exactOptional(),
  cwd: z.string().min(1).exactOptional(),
  timeoutMs: z.int().min(1).max(DEFAULT_TOOL_LIMITS.processTimeoutCeilingMs)
    .exactOptional(),
  env: z.record(
    z.string(),
    z.string().refine((v) => !NUL.test(v), "NUL characters are not allowed"),
  ).superRefine((env, ctx) => {
    for (const key of Object.keys(env)) {
      const message = key === "" || key.includes("=") || NUL.test(key)
        ? "invalid environment variable name"
        : isRefusedEnvKey(key)
        ? "environment variable is refused (set in configuration)"
        : undefined;
      if (message !== undefined) {
        ctx.addIssue({ code: "custom", path: [key], message });
      }
    }
  }).exactOptional(),
});

/**
 * `git_status`: the complete effective arguments.
 *
 * @example
 * ```ts
 * import { gitStatusArgsSchema } from "./_args_schemas.ts";
 * import assert from "node:assert/strict";
 * assert.equal(gitStatusArgsSchema.safeParse({ command: "log" }).success, true);
 * assert.equal(gitStatusArgsSchema.safeParse({ command: "push" }).success, false);
 * ```
 */
export const gitStatusArgsSchema: z.ZodType<GitStatusArgs> = z.strictObject({
  command: z.enum(["status", "log", "diff"]).exactOptional(),
  args: z.array(z.string()).exactOptional(),
});

/**
 * `git_commit`: the complete effective arguments.
 *
 * @example
 * ```ts
 * import { gitCommitArgsSchema } from "./_args_schemas.ts";
 * import assert from "node:assert/strict";
 * assert.equal(gitCommitArgsSchema.safeParse({ message: "m" }).success, true);
 * assert.equal(gitCommitArgsSchema.safeParse({ message: "m", files: ["-a"] }).success, false);
 * ```
 */
export const gitCommitArgsSchema: z.ZodType<GitCommitArgs> = z.strictObject({
  message: z.string().min(1).refine(
    (m) => !NUL.test(m),
    "NUL characters are not allowed",
  ),
  files: z.array(
    z.string().min(1).refine((f) => !f.startsWith("-"), {
      message: "file names may not start with '-'",
    }).refine((f) => !NUL.test(f), "NUL characters are not allowed"),
  ).exactOptional(),
});

/**
 * `http_request`: the complete effective arguments.
 *
 * @example
 * ```ts
 * import { httpRequestArgsSchema } from "./_args_schemas.ts";
 * import assert from "node:assert/strict";
 * assert.equal(httpRequestArgsSchema.safeParse({ url: "https://example.com/" }).success, true);
 * assert.equal(httpRequestArgsSchema.safeParse({ url: "https://example.com/", body: "x" }).success, false);
 * ```
 */
export const httpRequestArgsSchema: z.ZodType<HttpRequestArgs> = z.strictObject(
  {
    url: z.string().min(1),
    method: z.enum(["GET", "POST", "PUT", "DELETE"]).exactOptional(),
    headers: z.record(z.string(), z.string()).exactOptional(),
    body: z.string().exactOptional(),
  },
).refine((a) => a.body === undefined || (a.method ?? "GET") !== "GET", {
  message: "a GET request cannot have a body",
  path: ["body"],
});
