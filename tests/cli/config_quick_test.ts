import assert from "node:assert/strict";
import { quickConfigData } from "../../cli/config/quick.ts";
import {
  globalFileSchema,
  projectFileSchema,
} from "../../cli/config/schema.ts";
import { mutations } from "../schema/_mutations.ts";

const CHAT = {
  default_model: "gpt-5.4-mini",
  default_provider: "openai",
  reasoning_effort: "low",
  fs_scope: "project",
  allowed_commands: ["git status"],
  allowed_command_globs: ["deno task *"],
  allowed_domains: ["example.com"],
  command_timeout_ms: 120000,
  max_turns: 3,
  max_messages: 40,
  auto_compact: true,
  compact_threshold: 1,
  max_cost_microcents: 0,
  on_exceed: "warn",
  strict_cost_cap: false,
};

const GLOBALS: unknown[] = [
  {},
  {
    chat: CHAT,
    catalog: { auto_refresh: false },
    update_channel: "beta",
    preferences: {
      default_model: "claude-sonnet-4-6",
      default_provider: "anthropic",
      reasoning_effort: "high",
      theme: "dark",
      alt_screen: 1,
      mouse: [],
      show_banner: {},
      copy_on_select: true,
    },
  },
];

const PROJECTS: unknown[] = [
  { chat: { max_turns: 1 } },
  {
    variables: { area: "tests", empty: "" },
    chat: CHAT,
    defaults: { max_tokens_estimate: 4096, fs_scope: "full", model: "m" },
  },
];

function agree(
  kind: "global" | "project",
  bases: unknown[],
  schema: typeof globalFileSchema | typeof projectFileSchema,
): [number, number] {
  let quick = 0;
  let slow = 0;
  for (const base of bases) {
    for (const doc of mutations(base)) {
      const full = schema.safeParse(doc);
      const fast = quickConfigData(kind, doc);
      const label = `${kind} ${JSON.stringify(doc)}`;
      if (fast === undefined) {
        // Only [[providers]] may fall back while valid.
        assert.ok(
          !full.success || Object.hasOwn(doc as object, "providers"),
          label,
        );
        slow++;
        continue;
      }
      quick++;
      assert.ok(full.success, label);
      assert.equal(JSON.stringify(fast), JSON.stringify(full.data), label);
    }
  }
  return [quick, slow];
}

Deno.test("quickConfigData() returns what the config schemas return, or undefined", () => {
  const [gq, gs] = agree("global", GLOBALS, globalFileSchema);
  const [pq, ps] = agree("project", PROJECTS, projectFileSchema);
  assert.ok(
    gq > 50 && gs > 300 && pq > 50 && ps > 300,
    `${gq}/${gs} ${pq}/${ps}`,
  );
});

Deno.test("quickConfigData() leaves [[providers]] and misplaced tables to the schemas", () => {
  const providers = {
    providers: [{
      id: "local",
      kind: "openai-compatible",
      base_url: "http://127.0.0.1:1/v1",
      allow_local: true,
    }],
  };
  assert.equal(quickConfigData("project", providers), undefined);
  assert.equal(projectFileSchema.safeParse(providers).success, true);
  assert.equal(quickConfigData("global", { variables: {} }), undefined);
  assert.equal(quickConfigData("project", { preferences: {} }), undefined);
});
