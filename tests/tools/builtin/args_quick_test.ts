import assert from "node:assert/strict";
import * as quick from "../../../tools/builtin/_args_quick.ts";
import * as schemas from "../../../tools/builtin/_args_schemas.ts";
import { mutations } from "../../schema/_mutations.ts";

interface Case {
  plain: (v: unknown) => boolean;
  schema: { safeParse(v: unknown): { success: boolean; data?: unknown } };
  bases: unknown[];
  /** Valid inputs the quick check may leave to the schema. */
  rare?: (v: unknown) => boolean;
}

const has = (key: string) => (v: unknown) =>
  typeof v === "object" && v !== null && Object.hasOwn(v, key);

const CASES: Record<string, Case> = {
  read_file: {
    plain: quick.isPlainReadFileArgs,
    schema: schemas.readFileArgsSchema,
    bases: [{ path: "a.md" }, { path: "**/*.ts", glob: true }],
  },
  list_directory: {
    plain: quick.isPlainListDirectoryArgs,
    schema: schemas.listDirectoryArgsSchema,
    bases: [{ path: "." }, { path: "src", recursive: false, glob: "*.ts" }],
  },
  write_file: {
    plain: quick.isPlainWriteFileArgs,
    schema: schemas.writeFileArgsSchema,
    bases: [{ path: "a.md", content: "" }, {
      path: "d/a.md",
      content: "x",
      append: true,
      createDirs: false,
    }],
  },
  run_command: {
    plain: quick.isPlainRunCommandArgs,
    schema: schemas.runCommandArgsSchema,
    bases: [{ command: "git" }, {
      command: "deno",
      args: ["task", "test", "a b"],
      cwd: "sub",
      timeoutMs: 120000,
    }, { command: "make", env: { CI: "1" } }],
    rare: has("env"),
  },
  git_status: {
    plain: quick.isPlainGitStatusArgs,
    schema: schemas.gitStatusArgsSchema,
    bases: [{}, { command: "diff", args: ["--stat", ""] }],
  },
  git_commit: {
    plain: quick.isPlainGitCommitArgs,
    schema: schemas.gitCommitArgsSchema,
    bases: [{ message: "--amend" }, { message: "m", files: ["a.ts", "b/c"] }],
  },
  http_request: {
    plain: quick.isPlainHttpRequestArgs,
    schema: schemas.httpRequestArgsSchema,
    bases: [{ url: "https://example.com/" }, {
      url: "https://example.com/a",
      method: "POST",
      headers: { accept: "text/plain", "": "" },
      body: "{}",
    }],
    rare: (v) => {
      const h = (v as { headers?: unknown }).headers;
      return typeof h === "object" && h !== null &&
        (Object.hasOwn(h, "__proto__") ||
          Object.getPrototypeOf(h) !== Object.prototype);
    },
  },
};

for (const [tool, c] of Object.entries(CASES)) {
  Deno.test(`${tool}: the quick check accepts only what the schema accepts, as is`, () => {
    let accepted = 0;
    let refused = 0;
    for (const base of c.bases) {
      for (const v of mutations(base)) {
        const full = c.schema.safeParse(v);
        const label = JSON.stringify(v);
        if (c.plain(v)) {
          accepted++;
          assert.ok(full.success, label);
          assert.deepEqual(full.data, v, label);
        } else {
          refused++;
          assert.ok(!full.success || (c.rare?.(v) ?? false), label);
        }
      }
    }
    assert.ok(accepted > 10 && refused > 50, `${accepted}/${refused}`);
  });
}
