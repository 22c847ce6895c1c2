/**
 * `deno task bundle`: `deno bundle` of cli.ts to one JS file runs a
 * cassette turn (`agent run --fixture`) in a real process. Ignored, with
 * the reason in its name, where this Deno has no `deno bundle`.
 */
import assert from "node:assert/strict";
import { ROOT, runDeno } from "./_child.ts";
import { parseEvents, signature, textCassette } from "./_helpers.ts";
import { ONE_TURN_RUN, scenario } from "./_kit/scenario.ts";

/** Whether this Deno has `deno bundle` (its help exits 0). */
const AVAILABLE = await runDeno(["bundle", "--help"], { cwd: ROOT, env: {} })
  .then((out) => out.code === 0, () => false);

Deno.test("deno task bundle is `deno bundle` of cli.ts into dist/", async () => {
  const config = JSON.parse(await Deno.readTextFile(`${ROOT}deno.json`));
  assert.equal(
    config.tasks.bundle,
    "deno bundle --platform deno --output dist/relavium.js cli.ts",
  );
});

Deno.test({
  name: AVAILABLE
    ? "the bundle runs a cassette turn (agent run --fixture)"
    : "the bundle runs a cassette turn: IGNORED, `deno bundle` is unavailable in this Deno",
  ignore: !AVAILABLE,
  async fn() {
    await using s = await scenario({ env: { NO_COLOR: undefined } });
    const bundle = `${s.dir}/relavium.js`;
    const flags = ["--quiet", "--platform", "deno", "--output", bundle];
    const built = await runDeno(["bundle", ...flags, "cli.ts"], {
      cwd: ROOT,
      env: Deno.env.toObject(), // the whole environment, as the task has
    });
    assert.equal(built.code, 0, built.stderr);
    await s.file(
      "mini.agent.yaml",
      "id: mini\nmodel: gpt-5.4-mini\nprovider: openai\nsystem_prompt: Be terse.\n",
    );
    await s.file("c.json", textCassette("openai", ["Bundled."]));
    const argv = ["agent", "run", "mini.agent.yaml", "--fixture", "c.json"];
    const out = await runDeno(
      [
        "run",
        "--no-prompt",
        "--allow-read",
        "--allow-env",
        bundle,
        ...argv,
        "--json",
      ],
      { cwd: s.cwd, env: s.env, stdin: "hello\n" },
    );
    assert.equal(out.code, 0, out.stderr);
    assert.equal(out.stderr, "");
    const events = parseEvents(out.stdout);
    assert.deepEqual(signature(events), ONE_TURN_RUN);
  },
});
