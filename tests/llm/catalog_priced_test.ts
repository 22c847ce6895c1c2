/**
 * Every model of the bundled catalog prices a cassette turn through the
 * real CLI: `agent run --fixture` on an agent naming the model and its
 * provider, then the turn's `cost:updated` says `priced: true` with a
 * non-zero cost, cache reads and writes included.
 */
import assert from "node:assert/strict";
import { BUILTIN_MODELS } from "../../llm/catalog_data.ts";
import { parseEvents, runCli, tempDir, write } from "../cli/_helpers.ts";

Deno.test("every current catalog model prices a cassette turn (cost:updated priced: true)", async (t) => {
  assert.ok(BUILTIN_MODELS.length > 10, "the catalog has its rows");
  await using dir = await tempDir();
  const env = { RELAVIUM_HOME: `${dir.path}/home` };
  for (const model of BUILTIN_MODELS) {
    await t.step(`${model.provider}/${model.id}`, async () => {
      await write(
        `${dir.path}/m.agent.yaml`,
        `id: m\nname: M\nmodel: ${model.id}\nprovider: ${model.provider}\nsystem_prompt: Be terse.\n`,
      );
      await write(
        `${dir.path}/c.json`,
        JSON.stringify({
          schema_version: "1.0",
          provider: model.provider,
          calls: [[
            { type: "text_delta", text: "Done." },
            {
              type: "stop",
              stopReason: "stop",
              usage: {
                inputTokens: 1000,
                outputTokens: 200,
                cacheReadTokens: 3000,
                cacheWriteTokens: 500,
              },
            },
          ]],
        }),
      );
      const r = await runCli(
        ["agent", "run", "m.agent.yaml", "--fixture", "c.json", "--json"],
        { env, cwd: dir.path, stdin: "hello\n" },
      );
      assert.equal(r.code, 0, r.stderr);
      const costs = parseEvents(r.stdout).filter((e) =>
        e.type === "cost:updated"
      );
      assert.ok(costs.length > 0, "a cost:updated event");
      for (const e of costs) {
        const c = e as unknown as { priced?: boolean; [k: string]: unknown };
        assert.equal(c.priced, true, JSON.stringify(e));
      }
    });
  }
});
