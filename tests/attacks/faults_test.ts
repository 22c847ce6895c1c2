/**
 * Attack table, faults: what a broken or hostile file (a cassette, a
 * provider endpoint's DNS answer, a tampered session store) can make the
 * CLI do. One row per vector, each driven through `main` in process: the
 * row's exit code and stderr, never a stack trace or an internal error,
 * and nothing already stored changed.
 */
import assert from "node:assert/strict";
import { runCli, type RunOptions, tempDir, write } from "../cli/_helpers.ts";

const AGENT =
  "id: mini\nname: Mini\nmodel: gpt-5.4-mini\nprovider: openai\nsystem_prompt: Be terse.\n";

const STOP = {
  type: "stop",
  stopReason: "stop",
  usage: { inputTokens: 1, outputTokens: 1 },
};

/** One vector: files to plant, the command, and what it must end with. */
interface Row {
  name: string;
  /** Files (relative to the temp dir) written before the run. */
  files?: Record<string, string>;
  /** Runs after the files, before the command (e.g. to tamper a store). */
  setup?: (dir: string) => Promise<void>;
  argv: string[];
  options?: Omit<RunOptions, "cwd">;
  code: number;
  /** Every pattern must match stderr. */
  stderr: RegExp[];
  /** Further checks after the run. */
  after?: (dir: string, r: { stdout: string; stderr: string }) => Promise<void>;
}

function cassette(doc: unknown): string {
  return JSON.stringify(doc);
}

const rows: Row[] = [
  {
    name: "cassette: a call without a terminal chunk is invalid at load",
    files: {
      "mini.agent.yaml": AGENT,
      "c.json": cassette({
        schema_version: "1.0",
        provider: "openai",
        calls: [[{ type: "text_delta", text: "cut off" }]],
      }),
    },
    argv: ["agent", "run", "mini.agent.yaml", "--fixture", "c.json"],
    options: { stdin: "hi\n" },
    code: 2,
    stderr: [
      /Invalid cassette: .*c\.json: calls\[0\]: no terminal stop\/error/,
    ],
  },
  {
    name: "cassette: an empty v1.1 provider-queue call is invalid at load",
    files: {
      "mini.agent.yaml": AGENT,
      "c.json": cassette({
        schema_version: "1.1",
        providers: {
          openai: { calls: [[{ type: "text_delta", text: "a" }, STOP], []] },
        },
      }),
    },
    argv: ["agent", "run", "mini.agent.yaml", "--fixture", "c.json"],
    options: { stdin: "hi\n" },
    code: 2,
    stderr: [/c\.json: providers\.openai\.calls\[1\]: no terminal stop\/error/],
  },
  {
    name:
      "cassette: a v1.1 {chunks} call without a terminal is invalid at load",
    files: {
      "mini.agent.yaml": AGENT,
      "c.json": cassette({
        schema_version: "1.1",
        provider: "openai",
        calls: [{ chunks: [{ type: "text_delta", text: "a" }] }],
      }),
    },
    argv: ["chat", "--fixture", "c.json"],
    options: { stdin: "hi\n" },
    code: 2,
    // Refused before a session exists: no store was created.
    after: async (dir) => {
      await assert.rejects(
        () => Deno.stat(`${dir}/home/history.db`),
        Deno.errors.NotFound,
      );
    },
    stderr: [/c\.json: calls\[0\]\.chunks: no terminal stop\/error/],
  },
];

Deno.test("attacks: faults", async (t) => {
  for (const row of rows) {
    await t.step(row.name, async () => {
      await using dir = await tempDir();
      for (const [path, text] of Object.entries(row.files ?? {})) {
        await write(`${dir.path}/${path}`, text);
      }
      await row.setup?.(dir.path);
      const env = { RELAVIUM_HOME: `${dir.path}/home`, NO_COLOR: "1" };
      const r = await runCli(row.argv, {
        ...row.options,
        env: { ...env, ...row.options?.env },
        cwd: dir.path,
      });
      assert.equal(r.code, row.code, r.stderr);
      for (const want of row.stderr) assert.match(r.stderr, want);
      assert.doesNotMatch(r.stderr, /Internal error|\n\s+at /);
      assert.doesNotMatch(r.stdout, /Internal error|\n\s+at /);
      await row.after?.(dir.path, r);
    });
  }
});
