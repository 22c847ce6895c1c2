/**
 * The first-use trust question on a terminal: `chat` offers an untrusted
 * project file that asks for more than the user granted, once, before the
 * session; `y` trusts its exact content, anything else leaves it ignored.
 */
import assert from "node:assert/strict";
import { textCassette } from "../_helpers.ts";
import { type Scenario, scenario } from "../_kit/scenario.ts";

/** A scenario in `repo/` whose project file widens `max_turns`, and a cassette answering `reply`. */
async function wideningRepo(reply: string): Promise<Scenario> {
  const s = await scenario({ cwd: "repo" });
  await s.project("[chat]\nmax_turns = 70\n");
  await s.file("c.json", textCassette("anthropic", [reply]));
  return s;
}

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
    await using s = await wideningRepo("unused");
    const r = await s.run(["chat", "--fixture", "c.json"], {
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
    const shown = await s.run(["config", "show", "--json"], {
      trust: false,
      code: 0,
    });
    assert.deepEqual(
      maxTurns(shown.stdout),
      trusted ? [70, "project"] : [50, "built-in"],
    );
  });
}

Deno.test("chat that is not on a terminal never asks (the notice says what is ignored)", async () => {
  await using s = await wideningRepo("Hi.");
  const r = await s.run(["chat", "--fixture", "c.json"], {
    trust: false,
    stdin: "hello\n",
  });
  assert.doesNotMatch(r.stderr, /Trust this file/);
  assert.match(r.stderr, /chat\.max_turns/);
});
