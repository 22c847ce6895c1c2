/**
 * `agent run` after a refusal: a governed action it could ask no one
 * about ends the turn `tool_denied`; stderr names the mode that lets the
 * agent act and the record keeps what the model wrote before.
 */
import assert from "node:assert/strict";
import { runCli, tempDir, write } from "../_helpers.ts";

const CASSETTE = JSON.stringify({
  schema_version: "1.0",
  provider: "anthropic",
  calls: [[
    { type: "text_delta", text: "I will write it." },
    { type: "tool_call_start", id: "c1", name: "write_file" },
    {
      type: "tool_call_delta",
      id: "c1",
      argsJsonDelta: JSON.stringify({ path: "x.txt", content: "hi" }),
    },
    { type: "tool_call_end", id: "c1" },
    {
      type: "stop",
      stopReason: "tool_use",
      usage: { inputTokens: 10, outputTokens: 3 },
    },
  ]],
});

Deno.test("agent run: a refused write prints a hint naming --mode auto; the record keeps the text written before", async (t) => {
  for (const json of [false, true]) {
    await t.step(json ? "--output json" : "plain", async () => {
      await using dir = await tempDir();
      await write(
        `${dir.path}/a.agent.yaml`,
        "id: helper\nmodel: claude-haiku-4-5\nprovider: anthropic\nsystem_prompt: Help.\ntools: [write_file]\n",
      );
      await write(`${dir.path}/c.json`, CASSETTE);
      const r = await runCli(
        [
          "agent",
          "run",
          "a.agent.yaml",
          "--fixture",
          "c.json",
          ...(json ? ["--output", "json"] : []),
        ],
        {
          env: { RELAVIUM_HOME: `${dir.path}/home`, NO_COLOR: "1" },
          cwd: dir.path,
          stdin: "write x\n",
        },
      );
      assert.equal(r.code, 1, r.stderr);
      assert.match(r.stderr, /\[turn failed: tool_denied\]/);
      assert.match(r.stderr, /\nhint: agent run asks no one.*--mode auto/);
      if (json) {
        const record = JSON.parse(r.stdout);
        assert.equal(record.answer, "I will write it.");
        assert.equal(record.isError, true);
      }
      await assert.rejects(Deno.lstat(`${dir.path}/x.txt`));
    });
  }
});
