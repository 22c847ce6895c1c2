/**
 * Private: zod-free checks of the built-in tools' arguments. Each accepts
 * only what its strict schema (`_args_schemas.ts`) accepts, and the value
 * is then used as given (the schema would return an equal value), so a
 * valid call never loads zod; anything else goes to the schema, which
 * names each problem for the model. A rarer form (a run_command `env`,
 * `http_request` headers with a `__proto__` key) is simply left to the
 * schema. tests/tools/builtin/args_quick_test.ts compares each check with its
 * schema over single-field mutations.
 *
 * @module
 */
import type { GitCommitArgs } from "./git_commit.ts";
import type { GitStatusArgs } from "./git_status.ts";
import type { HttpRequestArgs } from "./http_request.ts";
import { isStringRecord } from "../../schema/_checks.ts";
import {
  everyItem,
  isBool,
  isNonEmpty,
  isString,
  type Json,
} from "../../schema/_checks.ts";
import { DEFAULT_TOOL_LIMITS } from "../sandbox/limits.ts";
import type { ListDirectoryArgs } from "./list_directory.ts";
import type { ReadFileArgs } from "./read_file.ts";
import type { RunCommandArgs } from "./run_command.ts";
import type { WriteFileArgs } from "./write_file.ts";

type Check = (v: unknown) => boolean;

// deno-lint-ignore no-control-regex
const NUL = /\u0000/;

const noNul: Check = (v) => typeof v === "string" && !NUL.test(v);

/** A strict object: only `shape`'s keys, `required` present, each valid. */
function strict(
  v: unknown,
  shape: Readonly<Record<string, Check>>,
  required: readonly string[],
): v is Json {
  if (typeof v !== "object" || v === null || Array.isArray(v)) return false;
  const o = v as Json;
  for (const key in o) {
    const check = shape[key];
    if (check === undefined || !Object.hasOwn(shape, key)) return false;
    if (!check(o[key])) return false;
  }
  return required.every((k) => k in o);
}

/**
 * `read_file` arguments, plainly valid.
 *
 * @example
 * ```ts
 * import { isPlainReadFileArgs } from "./_args_quick.ts";
 * import assert from "node:assert/strict";
 * assert.equal(isPlainReadFileArgs({ path: "a.md" }), true);
 * assert.equal(isPlainReadFileArgs({ path: "" }), false);
 * ```
 */
export function isPlainReadFileArgs(v: unknown): v is ReadFileArgs {
  return strict(v, { path: isNonEmpty, glob: isBool }, ["path"]);
}

/**
 * `list_directory` arguments, plainly valid.
 *
 * @example
 * ```ts
 * import { isPlainListDirectoryArgs } from "./_args_quick.ts";
 * import assert from "node:assert/strict";
 * assert.equal(isPlainListDirectoryArgs({ path: ".", recursive: true }), true);
 * ```
 */
export function isPlainListDirectoryArgs(
  v: unknown,
): v is ListDirectoryArgs {
  return strict(
    v,
    { path: isNonEmpty, recursive: isBool, glob: isNonEmpty },
    ["path"],
  );
}

/**
 * `write_file` arguments, plainly valid.
 *
 * @example
 * ```ts
 * import { isPlainWriteFileArgs } from "./_args_quick.ts";
 * import assert from "node:assert/strict";
 * assert.equal(isPlainWriteFileArgs({ path: "a.md", content: "" }), true);
 * ```
 */
export function isPlainWriteFileArgs(v: unknown): v is WriteFileArgs {
  return strict(
    v,
    { path: isNonEmpty, content: isString, append: isBool, createDirs: isBool },
    ["path", "content"],
  );
}

/**
 * `run_command` arguments without `env`, plainly valid.
 *
 * @example
 * ```ts
 * import { isPlainRunCommandArgs } from "./_args_quick.ts";
 * import assert from "node:assert/strict";
 * assert.equal(isPlainRunCommandArgs({ command: "git", args: ["status"] }), true);
 * assert.equal(isPlainRunCommandArgs({ command: "git status" }), false);
 * ```
 */
export function isPlainRunCommandArgs(v: unknown): v is RunCommandArgs {
  return strict(v, {
    command: (c) => isNonEmpty(c) && !/\s/.test(c as string) && noNul(c),
    args: (a) => everyItem(a, noNul),
    cwd: isNonEmpty,
    timeoutMs: (t) =>
      typeof t === "number" && Number.isSafeInteger(t) && t >= 1 &&
      t <= DEFAULT_TOOL_LIMITS.processTimeoutCeilingMs,
  }, ["command"]);
}

/**
 * `git_status` arguments, plainly valid.
 *
 * @example
 * ```ts
 * import { isPlainGitStatusArgs } from "./_args_quick.ts";
 * import assert from "node:assert/strict";
 * assert.equal(isPlainGitStatusArgs({ command: "log" }), true);
 * ```
 */
export function isPlainGitStatusArgs(v: unknown): v is GitStatusArgs {
  return strict(v, {
    command: (c) => c === "status" || c === "log" || c === "diff",
    args: (a) => everyItem(a, isString),
  }, []);
}

/**
 * `git_commit` arguments, plainly valid.
 *
 * @example
 * ```ts
 * import { isPlainGitCommitArgs } from "./_args_quick.ts";
 * import assert from "node:assert/strict";
 * assert.equal(isPlainGitCommitArgs({ message: "m", files: ["a.ts"] }), true);
 * assert.equal(isPlainGitCommitArgs({ message: "m", files: ["-a"] }), false);
 * ```
 */
export function isPlainGitCommitArgs(v: unknown): v is GitCommitArgs {
  return strict(v, {
    message: (m) => isNonEmpty(m) && noNul(m),
    files: (f) =>
      everyItem(
        f,
        (x) => isNonEmpty(x) && noNul(x) && !(x as string).startsWith("-"),
      ),
  }, ["message"]);
}

const METHODS: readonly unknown[] = ["GET", "POST", "PUT", "DELETE"];

/**
 * `http_request` arguments, plainly valid.
 *
 * @example
 * ```ts
 * import { isPlainHttpRequestArgs } from "./_args_quick.ts";
 * import assert from "node:assert/strict";
 * assert.equal(isPlainHttpRequestArgs({ url: "https://example.com/" }), true);
 * assert.equal(isPlainHttpRequestArgs({ url: "https://example.com/", body: "x" }), false);
 * ```
 */
export function isPlainHttpRequestArgs(v: unknown): v is HttpRequestArgs {
  const ok = strict(v, {
    url: isNonEmpty,
    method: (m) => METHODS.includes(m),
    // zod would return a copy without an own `__proto__`: leave that to it
    headers: (h) => isStringRecord(h) && !Object.hasOwn(h, "__proto__"),
    body: isString,
  }, ["url"]);
  return ok && (v.body === undefined || (v.method ?? "GET") !== "GET");
}
