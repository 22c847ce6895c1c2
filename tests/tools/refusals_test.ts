/**
 * Jail and floor refusals through the whole pipeline, on real temp dirs.
 * Every row also proves what the host saw: nothing for lexical refusals,
 * metadata only (never content) for symlink and hard-link refusals.
 */
import assert from "node:assert/strict";
import { builtinTools } from "../../tools/builtin/all.ts";
import type { ToolOutcome } from "../../tools/registry.ts";
import {
  builtinRig,
  type HostCall,
  makeContext,
  messageOf,
  tempDir,
} from "./_helpers.ts";

interface Fixture {
  ws: string;
  outside: string;
}

async function setUp(root: string): Promise<Fixture> {
  const ws = `${root}/ws`;
  const outside = `${root}/outside`;
  await Deno.mkdir(`${ws}/sub`, { recursive: true });
  await Deno.mkdir(outside);
  await Deno.writeTextFile(`${ws}/a.txt`, "inside");
  await Deno.writeTextFile(`${ws}/.env`, "TOKEN=1");
  await Deno.writeTextFile(`${outside}/secret.txt`, "outside secret");
  await Deno.symlink(`${outside}/secret.txt`, `${ws}/link-file`);
  await Deno.symlink(outside, `${ws}/link-dir`);
  await Deno.symlink(`${ws}/a.txt`, `${ws}/link-inside`);
  await Deno.symlink(`${ws}/.env`, `${ws}/innocent-name`);
  await Deno.writeTextFile(`${ws}/hard-src.txt`, "two names");
  await Deno.link(`${ws}/hard-src.txt`, `${ws}/hard.txt`);
  return { ws, outside };
}

async function dispatch(
  fx: Fixture,
  name: string,
  args: Record<string, unknown>,
  interactive: boolean,
): Promise<{ outcome: ToolOutcome; calls: HostCall[] }> {
  const { registry, calls } = builtinRig({
    workingDir: fx.ws,
    tools: builtinTools(),
  });
  const { ctx } = makeContext({ interactive });
  const outcome = await registry.dispatch({ id: "c1", name, args }, ctx);
  return { outcome, calls };
}

/** A batch dispatch that must succeed: its parsed model result, and what the host saw. */
async function okResult<T>(
  fx: Fixture,
  name: string,
  args: Record<string, unknown>,
): Promise<{ value: T; calls: HostCall[] }> {
  const { outcome, calls } = await dispatch(fx, name, args, false);
  assert.equal(outcome.kind, "ok");
  const value = JSON.parse(
    outcome.kind === "ok" ? outcome.modelResult : "null",
  ) as T;
  return { value, calls };
}

type Expect = "escape" | "fatal-denied" | "invalid";

Deno.test("lexical refusals never reach the host", async (t) => {
  await using dir = await tempDir();
  const fx = await setUp(dir.path);
  const rows: [string, string, Expect][] = [
    ["dot-dot", "../outside/secret.txt", "escape"],
    ["dot-dot deep", "sub/../../outside/secret.txt", "escape"],
    ["absolute outside", "/etc/hostname", "escape"],
    ["sibling prefix", `${fx.ws}2/a.txt`, "escape"],
    [
      "/proc/self/root to the workspace",
      `/proc/self/root${fx.ws}/a.txt`,
      "escape",
    ],
    ["/proc/self/root to /etc", "/proc/self/root/etc/passwd", "escape"],
    ["UNC", "\\\\server\\share\\a.txt", "escape"],
    ["blank", "   ", "escape"],
    ["empty", "", "invalid"],
    ["floor .env", ".env", "fatal-denied"],
    ["floor mixed case", ".EnV", "fatal-denied"],
    ["floor stream suffix", ".env:hidden", "fatal-denied"],
    ["floor trailing dots", ".env..", "fatal-denied"],
    ["floor trailing dot-space", ".env. ", "fatal-denied"],
    ["floor .env.local", "app/.ENV.Local", "fatal-denied"],
    ["floor .ssh segment", "sub/.SSH/id_ed25519", "fatal-denied"],
    ["floor .git/config", ".git/config", "fatal-denied"],
    ["floor netrc stream", ".NetRC:x", "fatal-denied"],
  ];
  for (const tool of ["read_file", "list_directory"]) {
    for (const [label, path, expect] of rows) {
      for (const interactive of [false, true]) {
        await t.step(
          `${tool} ${label} (interactive=${interactive})`,
          async () => {
            const { outcome, calls } = await dispatch(
              fx,
              tool,
              { path },
              interactive,
            );
            assert.deepEqual(calls, [], "the host saw nothing");
            if (expect === "invalid") {
              assert.equal(outcome.kind, "feedback");
              if (outcome.kind === "feedback") {
                assert.equal(outcome.code, "validation");
              }
            } else if (expect === "escape") {
              assert.equal(outcome.kind, "feedback", "in every session");
              assert.match(
                messageOf(outcome),
                /escapes the allowed filesystem scope|UNC|must not be empty/,
              );
              if (outcome.kind === "feedback") {
                assert.equal(outcome.code, "tool_denied");
              }
            } else {
              assert.equal(outcome.kind, "fatal", "floors are never fed back");
              if (outcome.kind === "fatal") {
                assert.equal(outcome.error.code, "tool_denied");
                assert.match(outcome.error.message, /sensitive-read floor/);
              }
            }
            assert.ok(
              !messageOf(outcome).includes(dir.path),
              "no path in the message",
            );
          },
        );
      }
    }
  }
});

Deno.test("resolved refusals read no content", async (t) => {
  await using dir = await tempDir();
  const fx = await setUp(dir.path);
  const rows: [string, string, Record<string, unknown>, RegExp][] = [
    [
      "symlinked file to outside",
      "read_file",
      { path: "link-file" },
      /symlink outside/,
    ],
    [
      "file under a symlinked dir",
      "read_file",
      { path: "link-dir/secret.txt" },
      /symlink outside/,
    ],
    [
      "listing a symlinked dir",
      "list_directory",
      { path: "link-dir" },
      /symlink outside/,
    ],
    [
      "symlink to a sensitive file",
      "read_file",
      { path: "innocent-name" },
      /sensitive-read floor/,
    ],
    [
      "hard-linked file",
      "read_file",
      { path: "hard.txt" },
      /more than one hard link/,
    ],
    [
      "hard-link source",
      "read_file",
      { path: "hard-src.txt" },
      /more than one hard link/,
    ],
  ];
  for (const [label, tool, args, why] of rows) {
    for (const interactive of [false, true]) {
      await t.step(`${label} (interactive=${interactive})`, async () => {
        const { outcome, calls } = await dispatch(fx, tool, args, interactive);
        assert.equal(outcome.kind, "fatal", "never fed back");
        if (outcome.kind === "fatal") {
          assert.equal(outcome.error.code, "tool_denied");
          assert.match(outcome.error.message, why);
          assert.ok(!outcome.error.message.includes(dir.path));
        }
        const touched = calls.filter((c) =>
          c.op === "readFile" || c.op === "readDir"
        );
        assert.deepEqual(touched, [], "no content was read");
        assert.ok(
          calls.every((c) =>
            !c.target.startsWith(fx.outside) || c.op === "realPath"
          ),
          "outside paths are at most realpath'd by the OS, never stat'd or read",
        );
      });
    }
  }
});

Deno.test("a symlink that stays inside the workspace is followed", async () => {
  await using dir = await tempDir();
  const fx = await setUp(dir.path);
  const { outcome } = await dispatch(
    fx,
    "read_file",
    { path: "link-inside" },
    false,
  );
  assert.equal(outcome.kind, "ok");
  if (outcome.kind === "ok") {
    assert.match(outcome.modelResult, /"content":"inside"/);
  }
});

Deno.test("listings omit symlinks, sensitive entries and never descend links", async () => {
  await using dir = await tempDir();
  const fx = await setUp(dir.path);
  const { value, calls } = await okResult<{ entries: { name: string }[] }>(
    fx,
    "list_directory",
    { path: ".", recursive: true },
  );
  const names = value.entries.map((e) => e.name);
  assert.deepEqual(names, ["a.txt", "hard-src.txt", "hard.txt", "sub"]);
  assert.ok(
    calls.every((c) => !c.target.startsWith(fx.outside)),
    "nothing outside was touched",
  );
});

Deno.test("glob reads skip links, hard links and sensitive files silently", async () => {
  await using dir = await tempDir();
  const fx = await setUp(dir.path);
  const { value, calls } = await okResult<{ content: string }>(
    fx,
    "read_file",
    { path: "**/*", glob: true },
  );
  assert.equal(value.content, "===== a.txt =====\ninside");
  assert.ok(calls.every((c) => !c.target.startsWith(fx.outside)));
});
