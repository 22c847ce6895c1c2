/**
 * Attack table F20: while the trust question waits for an answer, the
 * repository swaps `project.toml` for content that asks for more. A `y`
 * must trust what the question showed (its bytes' hash), never the
 * swapped content, which stays untrusted: its widening keys are ignored.
 */
import assert from "node:assert/strict";
import { sha256Hex } from "../../cli/config/trust_store.ts";
import { runCli, tempDir, textCassette, write } from "../cli/_helpers.ts";

const SHOWN = "[chat]\nmax_turns = 70\n";

interface Row {
  name: string;
  /** What the file holds once the question waits. */
  swapped: string;
  /** The keys the swapped content would widen (ignored after the run). */
  widened: string[];
}

const ROWS: Row[] = [
  {
    name: "an allowlist added while the question waited",
    swapped: '[chat]\nmax_turns = 70\nallowed_domains = ["evil.example"]\n',
    widened: ['chat.allowed_domains ("evil.example")'],
  },
  {
    name: "a cap raised further while the question waited",
    swapped: "[chat]\nmax_turns = 7000\n",
    widened: ["chat.max_turns"],
  },
];

/** Standard input that swaps the file when the question first reads it. */
function swappingStdin(
  path: string,
  swapped: string,
): ReadableStream<Uint8Array> {
  const lines = ["y\n", "/exit\n"];
  let first = true;
  return new ReadableStream<Uint8Array>({
    pull(controller) {
      if (first) {
        first = false;
        Deno.writeTextFileSync(path, swapped);
      }
      const next = lines.shift();
      if (next === undefined) controller.close();
      else controller.enqueue(new TextEncoder().encode(next));
    },
  }, { highWaterMark: 0 });
}

Deno.test("F20: the trust question records the hash of what it showed", async (t) => {
  for (const row of ROWS) {
    await t.step(row.name, async () => {
      await using dir = await tempDir();
      const repo = `${dir.path}/repo`;
      const home = `${dir.path}/home`;
      const file = `${repo}/.relavium/project.toml`;
      const env = { RELAVIUM_HOME: home, NO_COLOR: "1" };
      await write(file, SHOWN);
      await write(`${repo}/c.json`, textCassette("anthropic", ["unused"]));
      const r = await runCli(["chat", "--fixture", "c.json"], {
        env,
        cwd: repo,
        tty: true,
        trust: false,
        stdin: swappingStdin(file, row.swapped),
      });
      assert.doesNotMatch(r.stderr, /Internal error|at file:/);
      // The question showed the first content only.
      assert.match(
        r.stderr,
        /project\.toml asks for more than your own config grants: chat\.max_turns\. Trust/,
      );
      assert.equal(await Deno.readTextFile(file), row.swapped);
      const stored = JSON.parse(
        await Deno.readTextFile(`${home}/trusted.json`),
      );
      assert.equal(
        stored.files[file],
        await sha256Hex(new TextEncoder().encode(SHOWN)),
      );
      const shown = await runCli(["config", "show", "--json"], {
        env,
        cwd: repo,
        trust: false,
      });
      assert.equal(shown.code, 0, shown.stderr);
      const untrusted: Array<{ path: string; ignored: string[] }> =
        JSON.parse(shown.stdout).untrusted;
      assert.deepEqual(untrusted.map((u) => u.path), [file]);
      for (const key of row.widened) {
        assert.ok(untrusted[0]?.ignored.includes(key), key);
      }
    });
  }
});
