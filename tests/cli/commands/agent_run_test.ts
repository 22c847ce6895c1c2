/** Regression harness for `agent run`, in-process and once through a real process. */
import assert from "node:assert/strict";
import { ROOT } from "../_child.ts";
import { parseEvents, textCassette } from "../_helpers.ts";
import { cassette, strictCassette, textChunks } from "../_kit/cassette.ts";
import {
  ONE_TURN_RUN as ONE_TURN,
  type Scenario,
  scenario,
  type ScenarioOptions,
} from "../_kit/scenario.ts";

const AGENT =
  "id: mini\nname: Mini\nmodel: gpt-5.4-mini\nprovider: openai\nsystem_prompt: Be terse.\n";

function types(stdout: string): string[] {
  return parseEvents(stdout).map((e) => e.type);
}

/** A scenario with `mini.agent.yaml` and `c.json` holding `fixture`. */
async function withMini(
  fixture: string,
  options: ScenarioOptions = {},
): Promise<Scenario> {
  const s = await scenario(options);
  await s.file("mini.agent.yaml", AGENT);
  await s.file("c.json", fixture);
  return s;
}

/** `agent run <args> --fixture c.json`. */
function agentRun(...args: string[]): string[] {
  return ["agent", "run", ...args, "--fixture", "c.json"];
}

Deno.test("agent run: one turn from stdin, stream grammar of chat, nothing stored", async () => {
  await using s = await withMini(
    strictCassette([{
      expect: { lastUserIncludes: "line one\nline two", model: "gpt-5.4-mini" },
      chunks: textChunks("Done.", { inputTokens: 9, outputTokens: 1 }),
    }], "openai"),
  );
  const stdin = "line one\nline two\n";
  const r = await s.run([...agentRun("mini.agent.yaml"), "--json"], {
    stdin,
    code: 0,
  });
  assert.equal(r.stderr, "");
  assert.deepEqual(types(r.stdout), ONE_TURN);
  await assert.rejects(() => Deno.stat(s.home), Deno.errors.NotFound);
  const plain = await s.run(agentRun("mini.agent.yaml"), { stdin });
  assert.deepEqual([plain.code, plain.stdout, plain.stderr], [
    0,
    "Done.\n",
    "",
  ]);
});

Deno.test("agent run: a turn error exits 1 and prints the provider's words, no recovery hint", async () => {
  const error = {
    kind: "auth",
    provider: "openai",
    message: "bad key sk-live-123",
    retryable: false,
  };
  await using s = await withMini(
    cassette([[{ type: "error", error }]], "openai"),
  );
  const r = await s.run(agentRun("mini.agent.yaml"), { stdin: "hi", code: 1 });
  assert.equal(r.stdout, "");
  assert.equal(
    r.stderr,
    "[turn failed: provider_auth] The provider rejected the credentials (openai): bad key sk-live-123\n",
    "the provider's words, no recovery hint",
  );
});

Deno.test("agent run: cassette faults exit 1 (extra call, strict leftovers)", async (t) => {
  const cases: Array<[string, string, RegExp]> = [
    [
      "extra call",
      cassette([], "openai"),
      /unexpected stream call #1 \(only 0 recorded\)/,
    ],
    [
      "strict leftovers",
      // v1.1 accepts bare chunk lists as calls too.
      JSON.stringify({
        schema_version: "1.1",
        strict: true,
        provider: "openai",
        calls: ["a", "b"].map((text) =>
          textChunks(text, { inputTokens: 1, outputTokens: 1 })
        ),
      }),
      /1 recorded call\(s\) not consumed \(strict\)/,
    ],
  ];
  for (const [name, fixture, message] of cases) {
    await t.step(name, async () => {
      await using s = await withMini(fixture);
      const r = await s.run([...agentRun("mini.agent.yaml"), "--json"], {
        stdin: "hi",
        code: 1,
      });
      assert.match(r.stderr, message);
      assert.equal(types(r.stdout).at(-1), "session:cancelled");
    });
  }
});

Deno.test("agent run: bad input exits 2 before the session", async (t) => {
  const cases: Array<[string, string[], string, string]> = [
    ["empty stdin", ["mini.agent.yaml"], "", "empty_input"],
    ["whitespace stdin", ["mini.agent.yaml"], " \n\t\n", "empty_input"],
    ["unknown agent", ["ghost"], "hi", "not_found"],
    ["invalid agent", ["bad.agent.yaml"], "hi", "invalid_agent"],
    ["reserved --input", ["mini.agent.yaml", "--input", "a=b"], "hi", "usage"],
    ["missing variable", ["vars.agent.yaml"], "hi", "invalid_agent"],
  ];
  for (const [name, args, stdin, code] of cases) {
    await t.step(name, async () => {
      await using s = await withMini(textCassette("openai", ["x"]));
      await s.file("bad.agent.yaml", `${AGENT}colour: red\n`);
      await s.file(
        "vars.agent.yaml",
        AGENT.replace("Be terse.", "Focus on {{ctx.focus}}."),
      );
      const r = await s.run([...agentRun(...args), "--json"], {
        env: { ...s.env, HOME: s.dir },
        stdin,
        code: 2,
      });
      assert.equal(r.stdout, "");
      assert.equal(JSON.parse(r.stderr).code, code);
    });
  }
});

Deno.test("agent run through real argv parsing in a subprocess", async () => {
  await using s = await withMini(textCassette("openai", ["From a process."]));
  // Started in the repository root: --cwd points it at the scenario.
  const out = await s.child(
    [
      "agent",
      "run",
      "mini.agent.yaml",
      "--cwd",
      s.dir,
      "--fixture",
      "c.json",
      "--json",
    ],
    { cwd: ROOT, stdin: "hello\n", code: 0 },
  );
  assert.equal(out.stderr, "");
  assert.deepEqual(types(out.stdout), ONE_TURN);
});
