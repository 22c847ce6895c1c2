/**
 * The first-use trust question on a terminal: `chat` offers an untrusted
 * project file that asks for more than the user granted, once, before the
 * session; `y` trusts its exact content, anything else leaves it ignored.
 */
import assert from "node:assert/strict";
import { runCli, tempDir, textCassette, write } from "../_helpers.ts";

function maxTurns(stdout: string): unknown {
  const rows: Array<{ key: string; value: unknown; source: string }> =
    JSON.parse(stdout).settings;
  const row = rows.find((r) => r.key === "chat.max_turns");
  return row === undefined ? undefined : [row.value, row.source];
}

for (
  const [answer, trusted] of [["y", true], ["n", false], [
    "sure\nn",
    false,
  ]] as const
) {
  Deno.test(`chat on a terminal asks once whether to trust a widening project file; "${answer.replace("\n", "⏎")}" ${trusted ? "trusts it" : "leaves it ignored"}`, async () => {
    await using dir = await tempDir();
    const repo = `${dir.path}/repo`;
    const env = { RELAVIUM_HOME: `${dir.path}/home`, NO_COLOR: "1" };
    await write(`${repo}/.relavium/project.toml`, "[chat]\nmax_turns = 70\n");
    await write(`${repo}/c.json`, textCassette("anthropic", ["unused"]));
    const r = await runCli(["chat", "--fixture", "c.json"], {
      env,
      cwd: repo,
      tty: true,
      trust: false,
      stdin: `${answer}\n/exit\n`,
    });
    const asked = r.stderr.match(/asks for more than your own config grants/g);
    assert.equal(asked?.length, 1, r.stderr);
    assert.match(
      r.stderr,
      /project\.toml asks for more than your own config grants: chat\.max_turns\. Trust this file's exact content\?/,
    );
    assert.doesNotMatch(r.stderr, /Internal error|at file:/);
    const shown = await runCli(["config", "show", "--json"], {
      env,
      cwd: repo,
      trust: false,
    });
    assert.equal(shown.code, 0, shown.stderr);
    assert.deepEqual(
      maxTurns(shown.stdout),
      trusted ? [70, "project"] : [50, "built-in"],
    );
  });
}

Deno.test("chat that is not on a terminal never asks (the notice says what is ignored)", async () => {
  await using dir = await tempDir();
  const repo = `${dir.path}/repo`;
  const env = { RELAVIUM_HOME: `${dir.path}/home`, NO_COLOR: "1" };
  await write(`${repo}/.relavium/project.toml`, "[chat]\nmax_turns = 70\n");
  await write(`${repo}/c.json`, textCassette("anthropic", ["Hi."]));
  const r = await runCli(["chat", "--fixture", "c.json"], {
    env,
    cwd: repo,
    trust: false,
    stdin: "hello\n",
  });
  assert.doesNotMatch(r.stderr, /Trust this file/);
  assert.match(r.stderr, /chat\.max_turns/);
});
