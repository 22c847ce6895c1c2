import assert from "node:assert/strict";
import {
  parseAgentText,
  resolveAgentRef,
} from "../../../cli/run/agent_file.ts";
import { tempDir, write } from "../_helpers.ts";

const AGENT =
  "id: reviewer\nmodel: gpt-5.4-mini\nprovider: openai\nsystem_prompt: Review.\ntools: [read_file]\n";

Deno.test("resolveAgentRef() loads a path relative to the cwd and an id from the project", async () => {
  await using dir = await tempDir();
  await write(`${dir.path}/p/agents/r.yaml`, AGENT);
  await write(`${dir.path}/p/.relavium/agents/reviewer.agent.yaml`, AGENT);
  const byPath = await resolveAgentRef("agents/r.yaml", {
    cwd: `${dir.path}/p`,
  });
  assert.ok(byPath.ok);
  if (byPath.ok) assert.equal(byPath.value.file, `${dir.path}/p/agents/r.yaml`);
  const byId = await resolveAgentRef("reviewer", {
    cwd: `${dir.path}/p/src`,
    projectRoot: `${dir.path}/p`,
  });
  assert.ok(byId.ok);
  if (byId.ok) {
    assert.equal(byId.value.agent.model, "gpt-5.4-mini");
    assert.equal(
      byId.value.file,
      `${dir.path}/p/.relavium/agents/reviewer.agent.yaml`,
    );
  }
  const missing = await resolveAgentRef("other", {
    cwd: dir.path,
    projectRoot: `${dir.path}/p`,
  });
  assert.equal(missing.ok ? "" : missing.error.code, "not_found");
  const badId = await resolveAgentRef("Not_Kebab", {
    cwd: dir.path,
    projectRoot: `${dir.path}/p`,
  });
  assert.equal(badId.ok ? "" : badId.error.code, "invalid_agent");
});

Deno.test("parseAgentText() refuses what is not one strict mapping", async (t) => {
  const cases: Array<[string, string, string]> = [
    ["empty", "", "a.yaml: must be a single mapping document"],
    [
      "two documents",
      `${AGENT}---\n${AGENT}`,
      "a.yaml: must be a single mapping document",
    ],
    ["a list", "- 1\n", "a.yaml: must be a single mapping document"],
    ["duplicate key", "id: a\nid: b\n", "a.yaml:2: duplicated mapping key"],
    ["custom tag", "id: !!js/function x\n", "a.yaml:1: unknown scalar tag"],
    [
      "wrong type",
      "id: a\nmodel: m\nprovider: openai\nsystem_prompt: s\ntemperature: hot\n",
      "a.yaml:5: temperature:",
    ],
    [
      "missing key",
      "id: a\nmodel: m\nprovider: openai\n",
      "a.yaml: system_prompt:",
    ],
    [
      "nested path",
      "id: a\nmodel: m\nprovider: openai\nsystem_prompt: s\nfallback_chain:\n  - model: x\n    provider: anthropic\n    max_attempts: 0\n",
      "a.yaml:8: fallback_chain[0].max_attempts:",
    ],
    [
      "unknown tool",
      "id: a\nmodel: m\nprovider: openai\nsystem_prompt: s\ntools:\n  - read_file\n  - rm_rf\n",
      'a.yaml:7: tools[1]: unknown tool "rm_rf"',
    ],
  ];
  for (const [name, text, want] of cases) {
    await t.step(name, async () => {
      const r = await parseAgentText(text, "a.yaml");
      assert.equal(r.ok, false);
      if (r.ok) return;
      assert.equal(r.error.code, "invalid_agent");
      assert.ok(
        r.error.message.startsWith(`Invalid agent: ${want}`),
        r.error.message,
      );
    });
  }
});

Deno.test("parseAgentText() decodes with the YAML core schema", async () => {
  const r = await parseAgentText(`${AGENT}description: yes\n`, "a.yaml");
  assert.ok(r.ok);
  if (r.ok) assert.equal(r.value.description, "yes");
});
