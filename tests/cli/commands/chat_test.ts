/**
 * Regression harness for `chat` and `chat-resume`, driven
 * in-process through `main(argv, io)` with cassettes and temp stores.
 */
import assert from "node:assert/strict";
import {
  parseEvents,
  signature as eventSignature,
  textCassette,
  write,
} from "../_helpers.ts";
import { createBufferedIo } from "../../../cli/io/io.ts";
import {
  callChunks,
  cassette,
  readRound,
  strictCassette,
  textChunks,
} from "../_kit/cassette.ts";
import { main } from "../../../cli/main.ts";
import {
  READ_ROUND,
  type Scenario,
  scenario,
  TEXT_TURN,
} from "../_kit/scenario.ts";
import type { SessionEvent } from "../../../schema/event.ts";

/** Strict NDJSON (see `parseEvents`), as loose records for field checks. */
function events(stdout: string): Array<Record<string, unknown>> {
  return parseEvents(stdout) as unknown as Array<Record<string, unknown>>;
}

function signature(list: Array<Record<string, unknown>>): string[] {
  return eventSignature(list as unknown as SessionEvent[]);
}

/** A scenario whose `c.json` is a text cassette of `replies` (anthropic). */
async function withReplies(...replies: string[]): Promise<Scenario> {
  const s = await scenario();
  await s.file("c.json", textCassette("anthropic", replies));
  return s;
}

Deno.test("chat: plain text turn streams model text to stdout, exit 4 on EOF", async () => {
  await using s = await withReplies("Hello \x1b[31mthere.");
  const r = await s.run(["chat", "--fixture", "c.json", "-q"], {
    stdin: "hi\n",
    code: 0,
  });
  assert.equal(r.stdout, "Hello there.\n");
  assert.equal(r.stderr, "");
});

Deno.test("chat --json: pure NDJSON, gap-free, session:cancelled last, empty stderr", async () => {
  await using s = await withReplies("One.", "Two.");
  const r = await s.run(["--json", "chat", "--fixture", "c.json"], {
    stdin: "first\n\n   \nsecond",
    code: 0,
  });
  assert.equal(r.stderr, "");
  const list = events(r.stdout);
  assert.equal(list[0]?.sequenceNumber, 0);
  assert.deepEqual(signature(list), [
    "session:started",
    ...TEXT_TURN,
    ...TEXT_TURN,
    "session:cancelled",
  ]);
  assert.deepEqual(
    (list[0]?.context as Record<string, unknown>).workingDir,
    s.dir,
  );
  const id = list[0]?.sessionId as string;
  const loaded = s.store((store) => store.load(id));
  assert.equal(loaded?.messages.length, 4);
  assert.equal(loaded?.record.status, "ended");
  assert.equal(loaded?.record.title, "first");
});

Deno.test("chat --json: slash commands answer on stderr, stdout stays events", async () => {
  await using s = await withReplies("Ok.");
  const r = await s.run(["chat", "--json", "--fixture", "c.json"], {
    stdin:
      "/help\n/mode auto\n/frob\nhi\n/cost\n@file is literal\n/exit\nnever sent\n",
  });
  assert.equal(
    r.code,
    1,
    "the @ line needs a second recorded call: a cassette fault",
  );
  assert.match(r.stderr, /\/mode \[mode\]/);
  assert.match(r.stderr, /Mode: auto \(from the next turn\)/);
  assert.match(r.stderr, /Unknown command \/frob \(try \/help\)/);
  assert.match(r.stderr, /Cost: \$0\.\d+ \(10 input, 2 output tokens\)/);
  assert.match(r.stderr, /unexpected stream call #2 \(only 1 recorded\)/);
  const sig = signature(events(r.stdout));
  assert.equal(sig.filter((s) => s === "session:turn_started").length, 2);
  assert.equal(sig.at(-1), "session:cancelled");
});

/** No `history.db` was created in the scenario's home. */
async function assertNothingStored(s: Scenario): Promise<void> {
  await assert.rejects(
    () => Deno.stat(`${s.home}/history.db`),
    Deno.errors.NotFound,
  );
}

Deno.test("chat: a malformed or mismatched cassette is exit 2 before anything is stored", async (t) => {
  const cases: Array<[string, string, RegExp]> = [
    ["bad JSON", "{", /invalid JSON/],
    [
      "unknown version",
      JSON.stringify({ schema_version: "9", provider: "anthropic", calls: [] }),
      /schema_version/,
    ],
    [
      "unknown chunk",
      JSON.stringify({
        schema_version: "1.0",
        provider: "anthropic",
        calls: [[{ type: "nope" }]],
      }),
      /calls\[0\]\[0\]\.type: unknown chunk type/,
    ],
    [
      "wrong provider",
      textCassette("openai", ["x"]),
      /provider: must equal the agent's primary provider "anthropic"/,
    ],
  ];
  for (const [name, text, message] of cases) {
    await t.step(name, async () => {
      await using s = await scenario();
      await s.file("c.json", text);
      const r = await s.run(["chat", "--json", "--fixture", "c.json"], {
        stdin: "hi\n",
        code: 2,
      });
      assert.equal(r.stdout, "");
      const e = JSON.parse(r.stderr);
      assert.equal(e.code, "invalid_cassette");
      assert.match(e.message, message);
      assert.ok(e.message.includes(`${s.dir}/c.json`), "file-attributed");
      await assertNothingStored(s);
    });
  }
});

Deno.test("chat: bad invocations exit 2 with nothing stored", async (t) => {
  const cases: Array<[string, string[], Record<string, string>, string]> = [
    ["unknown agent id", ["chat", "--agent", "nobody"], {}, "not_found"],
    [
      "missing agent file",
      ["chat", "--agent", "./x.agent.yaml"],
      {},
      "not_found",
    ],
    ["missing key", ["chat"], {}, "provider_auth"],
    [
      "missing gemini key",
      ["chat", "--model", "gemini-2.5-pro"],
      {},
      "provider_auth",
    ],
    ["uninferable --model", ["chat", "--model", "llama3"], {}, "usage"],
    [
      "unknown --provider",
      ["chat", "--model", "llama3", "--provider", "nowhere"],
      {},
      "provider_config",
    ],
    ["missing cassette", ["chat", "--fixture", "none.json"], {}, "not_found"],
  ];
  for (const [name, argv, env, code] of cases) {
    await t.step(name, async () => {
      await using s = await scenario({ env });
      const r = await s.run([...argv, "--json"], { stdin: "hi\n", code: 2 });
      assert.equal(r.stdout, "");
      assert.equal(JSON.parse(r.stderr).code, code);
      await assertNothingStored(s);
    });
  }
});

Deno.test("chat --agent <id> --model: the override replaces the primary and its provider", async () => {
  await using s = await scenario();
  await s.file(
    ".relavium/agents/helper.agent.yaml",
    "id: helper\nmodel: claude-haiku-4-5\nprovider: anthropic\nsystem_prompt: Help.\nfallback_chain:\n  - model: gpt-5.4-mini\n    provider: openai\n    max_attempts: 1\n",
  );
  await s.file("c.json", textCassette("openai", ["From o3."]));
  const argv = ["chat", "--agent", "helper", "--model", "o3"];
  const r = await s.run([...argv, "--fixture", "c.json", "--json"], {
    env: { ...s.env, HOME: `${s.dir}/h` },
    stdin: "hi\n",
    code: 0,
  });
  const list = events(r.stdout);
  assert.deepEqual([list[0]?.agentRef, list[0]?.model], ["helper", "o3"]);
});

/** A piped `chat --json` on `c.json` (exit 4); its session id. */
async function chatOnce(s: Scenario, stdin: string): Promise<string> {
  const first = await s.run(["chat", "--json", "--fixture", "c.json"], {
    stdin,
    code: 0,
  });
  return events(first.stdout)[0]?.sessionId as string;
}

Deno.test("chat → chat-resume: prior turns carried, totals accumulate", async () => {
  await using s = await withReplies("Paris.");
  const id = await chatOnce(s, "Capital of France?\n");
  await s.file(
    "c2.json",
    strictCassette([{
      expect: { model: "claude-sonnet-4-6", lastUserIncludes: "And Spain?" },
      chunks: textChunks("Madrid.", { inputTokens: 40, outputTokens: 3 }),
    }]),
  );
  const resumed = await s.run(["chat-resume", id, "--fixture", "c2.json"], {
    stdin: "And Spain?\n",
    code: 0,
  });
  assert.equal(resumed.stdout, "Madrid.\n");
  assert.match(
    resumed.stderr,
    new RegExp(
      `Resumed session ${id} \\(relavium-chat, claude-sonnet-4-6\\) in ${s.dir}: 1 prior turn, mode ask\\. Earlier tool calls and file contents are not carried over\\.`,
    ),
  );
  const shown = await s.show(id) as {
    turns: Array<{ user: string }>;
    totalInputTokens: number;
  };
  assert.deepEqual(shown.turns.map((t) => t.user), [
    "Capital of France?",
    "And Spain?",
  ]);
  assert.equal(shown.totalInputTokens, 50);
  const last = await s.run(
    ["chat-resume", "--last", "--json", "--fixture", "c.json"],
    { stdin: "", code: 0 },
  );
  assert.equal(last.stderr, "");
  const only = events(last.stdout);
  assert.deepEqual([only.length, only[0]?.type, only[0]?.sessionId], [
    1,
    "session:cancelled",
    id,
  ]);
});

/** A strict v1.1 cassette of one text call with `expect`. */
function expectCassette(expect: Record<string, unknown>, text: string): string {
  return strictCassette([{
    expect,
    chunks: textChunks(text, { inputTokens: 60, outputTokens: 2 }),
  }]);
}

Deno.test("chat, then chat-resume in a new process: earlier turns reach the request (expect.messagesInclude)", async () => {
  await using s = await withReplies("Paris.", "Madrid.");
  const id = await chatOnce(s, "Capital of France?\nAnd Spain?\n");
  await s.file(
    "c2.json",
    expectCassette({
      messagesInclude: [
        "Capital of France?",
        "Paris.",
        "And Spain?",
        "Madrid.",
      ],
      lastUserIncludes: "And Italy?",
    }, "Rome."),
  );
  const out = await s.child(
    ["chat-resume", id, "--fixture", "c2.json", "--json"],
    { stdin: "And Italy?\n", code: 0 },
  );
  assert.equal(out.stderr, "");
  const resumed = events(out.stdout);
  assert.equal(resumed[0]?.sequenceNumber, 0);
  assert.deepEqual(signature(resumed), [...TEXT_TURN, "session:cancelled"]);
  assert.equal(resumed[1]?.token, "Rome.");

  // The check bites: text that was never said fails the call (exit 1).
  await s.file(
    "c3.json",
    expectCassette({ messagesInclude: ["Berlin."] }, "x"),
  );
  const miss = await s.run(["chat-resume", id, "--fixture", "c3.json"], {
    stdin: "And Germany?\n",
    code: 1,
  });
  assert.match(
    miss.stderr,
    /expect\.messagesInclude\[0\]: "Berlin\." not found in any request message/,
  );
});

Deno.test("chat-resume of an unknown id exits 2", async () => {
  await using s = await scenario();
  const none = await s.run(["chat-resume", "nope", "--json"]);
  assert.deepEqual([none.code, none.stdout, JSON.parse(none.stderr).code], [
    2,
    "",
    "not_found",
  ]);
  const last = await s.run(["chat-resume", "--last", "--json"]);
  assert.deepEqual([last.code, JSON.parse(last.stderr).message], [
    2,
    "No session to resume",
  ]);
});

/** Stdin that yields `lines`, then raises `signal` instead of ending. */
function signallingStdin(
  lines: string,
  raise: () => void,
): ReadableStream<Uint8Array> {
  let sent = false;
  return new ReadableStream<Uint8Array>({
    pull(controller) {
      if (!sent) {
        sent = true;
        controller.enqueue(new TextEncoder().encode(lines));
        return;
      }
      raise();
      return new Promise(() => {}); // never ends by itself
    },
  }, { highWaterMark: 0 });
}

/** A buffered io in `s` whose stdin sends `hello`, then raises `signal`. */
function signalledIo(
  s: Scenario,
  signal: "SIGINT" | "SIGTERM",
  terminal: boolean,
): ReturnType<typeof createBufferedIo> {
  let raise = (): void => {};
  const b = createBufferedIo({
    env: s.env,
    cwd: s.cwd,
    stdin: signallingStdin("hello\n", () => raise()),
    stdinIsTerminal: terminal,
    stdoutIsTerminal: terminal,
  });
  raise = () => void b.raise(signal);
  return b;
}

Deno.test("chat: SIGINT/SIGTERM outside the REPL cancel and exit 130/143", async (t) => {
  for (const [signal, code] of [["SIGINT", 130], ["SIGTERM", 143]] as const) {
    await t.step(signal, async () => {
      await using s = await withReplies("Hi.");
      const b = signalledIo(s, signal, false);
      const exit = await main(["chat", "--json", "--fixture", "c.json"], b.io);
      assert.equal(exit, code);
      assert.deepEqual(signature(events(b.stdoutText())).slice(-2), [
        "session:turn_completed",
        "session:cancelled",
      ]);
    });
  }
});

Deno.test("chat: Ctrl-C at the interactive prompt ends the chat (exit 4)", async () => {
  await using s = await withReplies("Hi.");
  const b = signalledIo(s, "SIGINT", true);
  assert.equal(await main(["chat", "--fixture", "c.json"], b.io), 4);
  assert.equal(b.stdoutText(), "Hi.\n");
  assert.match(
    b.stderrText(),
    /\/help for commands, \/exit to leave\n> \[10 in \/ 2 out tokens, \$0\.0001\]\n\n> \nResume with: relavium chat-resume /,
  );
});

Deno.test("chat: a tool round reads a file through the jail (cassette v1.1 toolResultFor)", async () => {
  await using s = await scenario();
  await s.file("README.md", "This is a readme.\n");
  await s.file(
    "c.json",
    strictCassette(readRound({
      id: "call-1",
      path: "README.md",
      answer: "It is a readme.",
      tools: ["read_file", "list_directory", "git_status"],
      usage: [
        { inputTokens: 12, outputTokens: 4 },
        { inputTokens: 30, outputTokens: 8 },
      ],
    })),
  );
  const r = await s.run(["chat", "--json", "--fixture", "c.json"], {
    stdin: "What is README.md?\n",
    code: 0,
  });
  assert.equal(r.stderr, "");
  assert.deepEqual(signature(events(r.stdout)), [
    "session:started",
    "session:turn_started",
    ...READ_ROUND,
    "session:cancelled",
  ]);
  const plain = await s.run(
    ["chat", "--fixture", "c.json", "--no-color", "-q"],
    { stdin: "What is README.md?\n", code: 0 },
  );
  assert.equal(plain.stdout, "It is a readme.\n");
  assert.equal(plain.stderr, "[tool: read_file]\n");
});

Deno.test("chat: a file outside the workspace is refused by the sandbox tier", async () => {
  await using s = await scenario({ cwd: "ws" });
  await write(`${s.dir}/secret.txt`, "outside");
  const usage = { inputTokens: 1, outputTokens: 1 };
  await s.file(
    "c.json",
    cassette([
      callChunks("call-1", "read_file", '{"path":"../secret.txt"}', usage),
      textChunks("Cannot.", usage),
    ]),
  );
  const r = await s.run(["chat", "--json", "--fixture", "c.json"], {
    stdin: "read it\n",
  });
  assert.ok(!r.stdout.includes("outside"));
  const result = events(r.stdout).find((e) => e.type === "agent:tool_result");
  assert.equal(result?.success, false);
});
