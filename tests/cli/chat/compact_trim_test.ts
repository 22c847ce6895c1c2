/**
 * Context management through the CLI:
 * `/compact`, `/trim`, the cost cap, boundaries in `chat-show`, driven
 * in-process through `main(argv, io)` with cassettes and temp stores.
 */
import assert from "node:assert/strict";
import { createBufferedIo } from "../../../cli/io/io.ts";
import type { CliIo } from "../../../cli/io/io.ts";
import { main } from "../../../cli/main.ts";
import { contextDeps } from "../../../cli/run/session_setup.ts";
import { turnFailureHint } from "../../../cli/chat/hints.ts";
import type { SessionEvent } from "../../../schema/event.ts";
import {
  loadTrustedConfig as loadCliConfig,
  parseEvents,
  signature,
  textCassette,
} from "../_helpers.ts";
import {
  find,
  ONE_TURN_RUN,
  type Scenario,
  scenario,
  type ScenarioRun,
} from "../_kit/scenario.ts";

const SUMMARY =
  "The user asked for the capital of France; the answer was Paris.";

/** One text call of a v1.0 cassette. */
function call(text: string, input = 10): unknown[] {
  return [
    { type: "text_delta", text },
    {
      type: "stop",
      stopReason: "stop",
      usage: { inputTokens: input, outputTokens: 2 },
    },
  ];
}

function cassette(calls: unknown[][], provider = "anthropic"): string {
  return JSON.stringify({ schema_version: "1.0", provider, calls });
}

/** A piped chat of two turns and `/compact` (exit 0), on a cassette. */
async function twoTurnsThenCompact(s: Scenario): Promise<ScenarioRun> {
  await s.file(
    "c1.json",
    cassette([call("Paris."), call("Madrid."), call(SUMMARY, 80)]),
  );
  return await s.run(["chat", "--json", "--fixture", "c1.json"], {
    code: 0,
    stdin: "Capital of France?\nAnd Spain?\n/compact\n",
  });
}

/** `chat --model <model> [--provider <provider>] --fixture <fixture> --json`. */
function modelChat(
  model: string,
  fixture: string,
  provider?: string,
): string[] {
  const via = provider === undefined ? [] : ["--provider", provider];
  return ["chat", "--model", model, ...via, "--fixture", fixture, "--json"];
}

Deno.test("chat: /compact in a piped chat folds the earlier turn; chat-resume sends the summary, not the dropped text", async () => {
  await using s = await scenario();
  const first = await twoTurnsThenCompact(s);
  const list = parseEvents(first.stdout);
  assert.deepEqual(signature(list).slice(-5), [
    "session:turn_completed",
    "session:compacting",
    "cost:updated",
    "session:compacted",
    "session:cancelled",
  ]);
  // No window is known for a cassette: manual compaction discloses it.
  const opened = find(list, "session:compacting");
  assert.deepEqual([opened?.reason, opened?.windowUnknown], ["manual", true]);
  const compacted = find(list, "session:compacted");
  assert.equal(compacted?.summary, SUMMARY);
  assert.deepEqual(compacted?.tokensUsed, { input: 80, output: 2 });
  // The report goes to stderr: tokens before/after, spend, the summary.
  assert.match(
    first.stderr,
    new RegExp(
      `^Compacted: the model's context went from about ${compacted?.tokensBefore} to ${compacted?.tokensAfter} tokens; kept the latest 2 messages verbatim, the earlier ones are now a summary\\.\\nSummary cost: \\$0\\.\\d+ \\(80 input, 2 output tokens\\)\\.\\nSummary:\\n  ${SUMMARY}\\n$`,
    ),
  );
  const id = list[0]?.sessionId ?? "";

  // chat-show lists the boundary: reason, dropped range, summary.
  const shown = await s.show(id);
  assert.deepEqual(shown.boundaries, [{
    reason: "compaction",
    sequenceNumber: 4,
    droppedFromSequence: 0,
    droppedThroughSequence: 1,
    droppedTurns: { first: 1, last: 1 },
    summary: SUMMARY,
    timestamp: (shown.boundaries as Array<{ timestamp: string }>)[0]
      ?.timestamp,
  }]);
  const costs = shown.costs as Array<Record<string, unknown>>;
  assert.deepEqual(costs.map((c) => [c.model, c.calls, c.inputTokens]), [
    ["claude-sonnet-4-6", 3, 100],
  ]);
  const plain = await s.run(["chat-show", id]);
  assert.match(
    plain.stdout,
    new RegExp(
      `assistant: Paris\\.\\n\\n=== compaction boundary \\([^)]+\\): turn 1, stored messages #0–#1, are no longer sent to the model; the model sees this summary instead:\\n  ${SUMMARY}\\n===\\n\\n--- turn 2`,
    ),
  );
  assert.match(plain.stdout, /\nCost by model:\n {2}claude-sonnet-4-6 {2}\$/);

  // The resumed request carries the summary and the kept exchange.
  await s.file(
    "c2.json",
    JSON.stringify({
      schema_version: "1.1",
      strict: true,
      provider: "anthropic",
      calls: [{
        expect: {
          messagesInclude: [SUMMARY, "And Spain?", "Madrid."],
          lastUserIncludes: "And Italy?",
        },
        chunks: call("Rome."),
      }],
    }),
  );
  const resumed = await s.run(["chat-resume", id, "--fixture", "c2.json"], {
    code: 0,
    stdin: "And Italy?\n",
  });
  assert.equal(resumed.stdout, "Rome.\n");

  // …and no longer the folded text (the check fails the call: exit 1).
  await s.file(
    "c3.json",
    JSON.stringify({
      schema_version: "1.1",
      provider: "anthropic",
      calls: [{
        expect: { messagesInclude: ["Capital of France?"] },
        chunks: call("x"),
      }],
    }),
  );
  const gone = await s.run(["chat-resume", id, "--fixture", "c3.json"], {
    stdin: "Anything else?\n",
  });
  assert.equal(gone.code, 1);
  assert.match(gone.stderr, /"Capital of France\?" not found/);
});

Deno.test("chat: /compact with nothing to fold, or refused by the memory policy, writes nothing", async () => {
  await using s = await scenario();
  await s.file("c.json", cassette([call("Hi.")]));
  const r = await s.run(["chat", "--json", "--fixture", "c.json"], {
    code: 0,
    stdin: "/compact\nhello\n/compact\n/compact now\n",
  });
  assert.equal(
    r.stderr,
    "Nothing to compact: there is nothing before the latest exchange to summarise. Nothing changed.\n"
      .repeat(
        2,
      ) + "/compact takes no argument\n",
  );
  const list = parseEvents(r.stdout);
  assert.deepEqual(signature(list), ONE_TURN_RUN);
  const shown = await s.show(list[0]?.sessionId ?? "");
  assert.deepEqual(shown.boundaries, []);

  // memory: none refuses /compact and /trim with the engine's fixed text.
  await s.file(
    ".relavium/agents/amnesiac.agent.yaml",
    "id: amnesiac\nmodel: claude-sonnet-4-6\nprovider: anthropic\nsystem_prompt: Hi.\nmemory:\n  type: none\n",
  );
  await s.file("n.json", cassette([call("A."), call("B.")]));
  const none = await s.run([
    "chat",
    "--agent",
    "amnesiac",
    "--fixture",
    "n.json",
    "-q",
  ], { code: 0, stdin: "one\ntwo\n/compact\n/trim 1\n/trim\n" });
  assert.equal(
    none.stderr,
    "Compaction is not available: this agent's memory is none, so requests carry only the pending message.\n" +
      "Trimming is not available: this agent's memory is none, so requests carry only the pending message.\n"
        .repeat(
          2,
        ),
  );
});

Deno.test("chat-resume: /compact over the cost cap is refused before any request; nothing written", async () => {
  await using s = await scenario();
  await s.file(
    "c.json",
    cassette([call("One.", 1_000_000), call("Two.", 1_000_000)], "openai"),
  );
  const first = await s.run([
    "chat",
    "--model",
    "gpt-5.4-mini",
    "--fixture",
    "c.json",
    "--json",
  ], { code: 0, stdin: "a\nb\n" });
  const id = parseEvents(first.stdout)[0]?.sessionId ?? "";
  await s.project(
    '[chat]\nmax_cost_microcents = 10000000\non_exceed = "fail"\n',
  );
  // No recorded call: any request would be a cassette fault (exit 1).
  await s.file("none.json", cassette([], "openai"));
  const r = await s.run(
    ["chat-resume", id, "--fixture", "none.json", "--json"],
    { code: 0, stdin: "/compact\n" },
  );
  assert.equal(
    r.stderr,
    "Compaction not run: Request refused: it could exceed the session's cost cap of 10000000 micro-cents. Nothing changed; raise [chat].max_cost_microcents to allow it.\n",
  );
  assert.deepEqual(signature(parseEvents(r.stdout)), ["session:cancelled"]);
  assert.deepEqual((await s.show(id)).boundaries, []);
});

Deno.test("chat: /trim without a bound names [chat].max_messages and /compact; with one it drops whole turns", async () => {
  await using s = await scenario();
  await s.file("c.json", cassette([call("A1."), call("A2."), call("A3.")]));
  /** A piped `chat --json` on c.json of `lines` (exit 4). */
  const chat = (lines: string) =>
    s.run(["chat", "--json", "--fixture", "c.json"], { code: 0, stdin: lines });
  const bare = await chat("Q1\n/trim\n/trim 0\n/trim two\n/trim 1 2\n");
  assert.equal(
    bare.stderr,
    "/trim needs a bound: /trim <n> keeps about the last n messages, or set [chat].max_messages in your config for a bare /trim; or /compact to summarise earlier turns instead of dropping them. Nothing changed.\n" +
      "/trim takes a positive whole number of messages to keep. Nothing changed.\n"
        .repeat(2) +
      "/trim takes one argument\n",
  );
  assert.ok(!bare.stdout.includes("session:trimmed"));

  // [chat].max_messages is the bound of a bare /trim.
  await s.project("[chat]\nmax_messages = 2\n");
  const r = await chat("Q1\nQ2\n/trim 10\nQ3\n/trim\n/trim\n");
  assert.equal(
    r.stderr,
    "Nothing to trim: the context is already within the 10-message limit (4 messages).\n" +
      "Trimmed: 4 earlier messages no longer sent to the model; kept the latest 2 messages (1 turn). The stored transcript keeps them (chat-show lists the boundary).\n" +
      "Nothing to trim: the context is already within the 2-message limit (2 messages).\n",
  );
  const list = parseEvents(r.stdout);
  assert.deepEqual(
    list.filter((e) => e.type === "session:trimmed").map((e) => ({ ...e })),
    [{
      ...find(list, "session:trimmed"),
      reason: "manual",
      keptMessageCount: 2,
      droppedMessageCount: 4,
      keptTurnCount: 1,
    }],
  );
  const shown = await s.show(list[0]?.sessionId ?? "");
  const [b] = shown.boundaries as Array<Record<string, unknown>>;
  assert.deepEqual(
    [b?.reason, b?.droppedFromSequence, b?.droppedThroughSequence],
    ["trim", 0, 3],
  );
  assert.deepEqual([b?.droppedTurns, b?.summary], [
    { first: 1, last: 2 },
    null,
  ]);
  const plain = await s.run(["chat-show", list[0]?.sessionId ?? ""]);
  assert.match(
    plain.stdout,
    /assistant: A2\.\n\n=== trim boundary \([^)]+\): turns 1–2, stored messages #0–#3, are no longer sent to the model; dropped without a summary ===\n\n--- turn 3/,
  );
});

Deno.test("chat: a compact_threshold outside (0, 1] is a config error naming file, line and key; nothing is written", async (t) => {
  for (const value of ["0", "1.5", "-0.2"]) {
    await t.step(value, async () => {
      await using s = await scenario();
      await s.file("c.json", textCassette("anthropic", ["x"]));
      await s.project(`# limits\n[chat]\ncompact_threshold = ${value}\n`);
      const r = await s.run(["chat", "--json", "--fixture", "c.json"], {
        stdin: "hi\n",
      });
      assert.equal(r.code, 2);
      assert.equal(r.stdout, "");
      const e = JSON.parse(r.stderr);
      assert.equal(e.code, "invalid_config");
      assert.ok(
        e.message.includes(
          `${s.dir}/.relavium/project.toml:3: chat.compact_threshold: must be`,
        ),
        e.message,
      );
      await assert.rejects(
        () => Deno.stat(`${s.dir}/home`),
        Deno.errors.NotFound,
      );
    });
  }
});

const MINI =
  "id: mini\nmodel: gpt-5.4-mini\nprovider: openai\nsystem_prompt: Be terse.\n";

Deno.test("agent run: a cost cap refuses the turn before egress (budget_exceeded, exit 1)", async () => {
  await using s = await scenario();
  await s.file("mini.agent.yaml", MINI);
  await s.project('[chat]\nmax_cost_microcents = 1\non_exceed = "fail"\n');
  await s.file("c.json", textCassette("openai", ["never sent"]));
  const argv = ["agent", "run", "mini.agent.yaml", "--fixture", "c.json"];
  const r = await s.run([...argv, "--json"], {
    stdin: "hello\n",
  });
  assert.equal(r.code, 1);
  assert.equal(r.stderr, "");
  const list = parseEvents(r.stdout);
  assert.deepEqual(signature(list), [
    "session:started",
    "session:turn_started",
    "session:turn_completed",
    "session:cancelled",
  ]);
  const done = find(list, "session:turn_completed");
  assert.equal(done?.stopReason, "error");
  assert.equal(done?.error?.code, "budget_exceeded");
  assert.match(done?.error?.message ?? "", /cap of 1 micro-cents/);
  assert.deepEqual(done?.tokensUsed, { input: 0, output: 0 });

  const plain = await s.run(argv, { stdin: "hello\n" });
  assert.equal(plain.code, 1);
  assert.match(
    plain.stderr,
    /^\[turn failed: budget_exceeded\] [^\n]*cap of 1 micro-cents[^\n]*\n$/,
    "the engine's message, no hint",
  );

  // on_exceed = "warn": the turn runs, one warning on stderr.
  await s.project('[chat]\nmax_cost_microcents = 1\non_exceed = "warn"\n');
  const warned = await s.run([...argv, "--json"], {
    code: 0,
    stdin: "hello\n",
  });
  assert.equal(
    warned.stderr,
    "warning: The session may exceed its cost cap of 1 micro-cents; continuing (on_exceed = warn)\n",
  );
  assert.equal(
    find(parseEvents(warned.stdout), "session:turn_completed")?.stopReason,
    "stop",
  );
});

Deno.test("chat: the cap survives resume, and an unpriced model gets one notice only under a positive cap", async () => {
  await using s = await scenario();
  // The cap admits one attempt's worst case on gpt-5.4-mini (~1.9M µ¢:
  // mostly the 4096-token output reservation), but not on top of the
  // first turn's reported spend (1M input tokens ≈ 75M µ¢).
  await s.project(
    '[chat]\nmax_cost_microcents = 10000000\non_exceed = "fail"\n',
  );
  await s.file("c.json", cassette([call("One.", 1_000_000)], "openai"));
  const first = await s.run(modelChat("gpt-5.4-mini", "c.json"), {
    code: 0,
    stdin: "hi\n/cost\n",
  });
  assert.match(
    first.stderr,
    /^Cost: \$0\.75\d+ \(1000000 input, 2 output tokens\)\n {2}gpt-5\.4-mini {2}\$0\.75\d+ {2}1 call, 1000000 input, 2 output tokens\n$/,
  );
  const id = parseEvents(first.stdout)[0]?.sessionId ?? "";
  const resumed = await s.run(
    ["chat-resume", id, "--fixture", "c.json", "--json"],
    { code: 1, stdin: "again\n" },
  );
  const done = find(parseEvents(resumed.stdout), "session:turn_completed");
  assert.equal(done?.error?.code, "budget_exceeded", "spend carried over");

  // A declared endpoint's model has no price: one notice, then allowed.
  const entry =
    '[[providers]]\nid = "local"\nkind = "openai-compatible"\nbase_url = "http://127.0.0.1:9/v1"\nallow_local = true\n';
  await s.project(`[chat]\nmax_cost_microcents = 5\n\n${entry}`);
  await s.file("l.json", textCassette("local", ["L1.", "L2."]));
  const local = modelChat("llama3", "l.json", "local");
  const unpriced = await s.run(local, {
    code: 0,
    stdin: "a\nb\n",
  });
  assert.equal(
    unpriced.stderr,
    "notice: llama3 has no price, so the session cost cap does not apply to it (strict_cost_cap = true refuses it instead)\n",
  );
  await s.project(entry);
  const uncapped = await s.run(local, {
    code: 0,
    stdin: "a\n/cost\n",
  });
  assert.match(
    uncapped.stderr,
    /^Cost: price unknown \(10 input, 2 output tokens\)\n {2}llama3 {2}price unknown {2}1 call/,
    "no cap: no notice; $0 with tokens is price unknown",
  );
});

Deno.test("chat: Ctrl-C during /compact in the REPL stops it with nothing installed; the chat goes on", async () => {
  await using s = await scenario();
  // Strict, three turns: a summariser request would take A3 and leave
  // the third turn without a call (a fault).
  await s.file(
    "c.json",
    JSON.stringify({
      schema_version: "1.1",
      strict: true,
      provider: "anthropic",
      calls: [
        call("A1."),
        call("A2."),
        { expect: { lastUserIncludes: "Q3" }, chunks: call("A3.") },
      ],
    }),
  );
  const b = createBufferedIo({
    env: s.env,
    cwd: s.dir,
    stdin: "Q1\nQ2\n/compact\nQ3\n",
    stdinIsTerminal: true,
    stdoutIsTerminal: true,
  });
  let stderr = "";
  const io: CliIo = {
    ...b.io,
    stderr: {
      write(text) {
        stderr += text;
        // Ctrl-C as soon as the compaction moment opens.
        if (text.startsWith("Compacting the conversation")) b.raise("SIGINT");
      },
    },
  };
  assert.equal(await main(["chat", "--fixture", "c.json"], io), 4, stderr);
  assert.match(
    stderr,
    /> Compacting the conversation… \(the model's context window is unknown: each summary pass is limited to 16,384 estimated tokens\)\nCompaction stopped\. Nothing changed\.\n> \[10 in/,
  );
  const id = /^Session (\S+)/.exec(stderr)?.[1] ?? "";
  const shown = await s.show(id);
  assert.deepEqual(shown.boundaries, []);
  assert.equal(b.stdoutText(), "A1.\nA2.\nA3.\n", "the session went on");
});

Deno.test("contextDeps() maps [chat] and [defaults] onto the session deps", async () => {
  await using s = await scenario();
  await s.project(
    '[defaults]\nmax_tokens_estimate = 2048\n\n[chat]\nmax_messages = 40\nauto_compact = false\ncompact_threshold = 0.5\nmax_cost_microcents = 900\non_exceed = "warn"\nstrict_cost_cap = true\n',
  );
  const cfg = await loadCliConfig({
    cwd: s.dir,
    env: (n) => n === "RELAVIUM_HOME" ? `${s.dir}/home` : undefined,
  });
  assert.ok(cfg.ok);
  if (!cfg.ok) return;
  assert.deepEqual(contextDeps(cfg.value), {
    maxMessages: 40,
    autoCompact: false,
    compactThreshold: 0.5,
    maxTokensEstimate: 2048,
    budget: { maxCostMicrocents: 900, onExceed: "warn", strictCostCap: true },
  });
});

Deno.test("turnFailureHint() names only the remedies the memory policy allows", () => {
  const cases: Array<[Parameters<typeof turnFailureHint>[2], RegExp, RegExp]> =
    [
      [{}, /\/compact or \/trim/, /window_size/],
      [{ memory: "summary" }, /\/compact or \/trim/, /window_size/],
      [{ memory: "window" }, /\/trim.*window_size/, /\/compact/],
      [{ memory: "none" }, /shorten it/, /\/compact|\/trim/],
    ];
  for (const [options, has, hasNot] of cases) {
    for (
      const hint of [
        turnFailureHint("context_overflow", "x", options),
        turnFailureHint("validation", "P", {
          ...options,
          possibleOverflowMessage: "P",
        }),
      ]
    ) {
      assert.match(hint ?? "", has);
      assert.doesNotMatch(hint ?? "", hasNot);
    }
  }
  assert.match(
    turnFailureHint("budget_exceeded", "x") ?? "",
    /\[chat\]\.max_cost_microcents/,
  );
});

Deno.test("the hard cap counts the session's whole life: [chat] max_turns = 3, two turns, /compact, exit, chat-resume with two lines runs exactly one more turn, then turn_limit", async () => {
  await using s = await scenario();
  await s.file("home/config.toml", "[chat]\nmax_turns = 3\n");
  const first = await twoTurnsThenCompact(s);
  const events = parseEvents(first.stdout);
  assert.ok(find(events, "session:compacted"), "the chat compacted");
  const id = events[0]?.sessionId ?? "";
  const before = await s.show(id);
  assert.deepEqual([before["turnsUsed"], before["maxTurns"]], [2, 3]);

  await s.file("c2.json", cassette([call("Rome."), call("never sent")]));
  const resumed = await s.run(
    ["chat-resume", id, "--json", "--fixture", "c2.json"],
    { stdin: "And Italy?\nAnd Portugal?\n" },
  );
  const ends = parseEvents(resumed.stdout).filter((
    e,
  ): e is Extract<SessionEvent, { type: "session:turn_completed" }> =>
    e.type === "session:turn_completed"
  );
  assert.deepEqual(
    ends.map((e) => [e.stopReason, e.error?.code ?? null]),
    [["stop", null], ["error", "turn_limit"]],
    "one more turn, then the cap binds",
  );
  const after = await s.show(id);
  assert.deepEqual([after["turnsUsed"], after["maxTurns"]], [3, 3]);
  const plain = await s.run(["chat-show", id]);
  assert.match(plain.stdout, /\nTurns used: 3 of 3 \(the hard cap/);
});
