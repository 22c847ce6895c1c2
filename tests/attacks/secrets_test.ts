/**
 * Attack table: secrets as data. A scripted model tries to move a key
 * into a tool's arguments, or says one; the key must not run, and must
 * not be kept verbatim in events, `history.db`, `chat-show`, exports or
 * recordings. Driven through the CLI with cassettes (the recording row
 * through the recorder the CLI wires).
 */
import assert from "node:assert/strict";
import { denoRuntime, openSession } from "../../host/mod.ts";
import { createSecretScreen } from "../../host/secrets.ts";
import { parseCassette } from "../../llm/cassette.ts";
import { createMemoryStore } from "../../store/memory_store.ts";
import { parseEvents, runCli, tempDir, write } from "../cli/_helpers.ts";
import {
  recordOneTurn,
  scriptFlags,
  textCall,
  toolCall,
  writeScript,
} from "./_kit.ts";

/** The session's own key (anthropic): not shaped like a provider key. */
const SESSION_KEY = "relavium-test-key-7f3a9c2b1e";
/** Another configured provider's key (the session never uses it). */
const OTHER_KEY = "other-provider-key-91d0c4aa";
/** Shaped like an OpenAI project key, configured nowhere. */
const SHAPED_KEY = "sk-proj-Ab3dEf6hIj9kLm2nOp5qRs8t";

function keyEnv(dir: string): Record<string, string> {
  return {
    RELAVIUM_HOME: `${dir}/home`,
    ANTHROPIC_API_KEY: SESSION_KEY,
    RELAVIUM_OPENAI_API_KEY: OTHER_KEY,
  };
}

/** `chat --json` over the script of `dir`, both keys set, one user line; asserts it ended 4. */
async function chatJson(
  dir: string,
  line: string,
): Promise<{ code: number; stdout: string; stderr: string }> {
  const r = await runCli(["chat", ...scriptFlags(dir), "--json"], {
    env: keyEnv(dir),
    cwd: dir,
    stdin: `${line}\n`,
  });
  assert.equal(r.code, 0, r.stderr);
  return r;
}

function assertNoSecret(text: string, where: string): void {
  for (const key of [SESSION_KEY, OTHER_KEY, SHAPED_KEY]) {
    assert.ok(!text.includes(key), `a key reached ${where}:\n${text}`);
  }
  assert.doesNotMatch(text, /Internal error|\n\s+at /, where);
}

interface ArgRow {
  name: string;
  tool: string;
  args: (ws: string) => Record<string, unknown>;
  /** What must not exist afterwards. */
  absent: (ws: string) => string;
}

const ARG_ROWS: ArgRow[] = [
  {
    name: "the session's key in write_file content",
    tool: "write_file",
    args: () => ({ path: "leak.txt", content: `key=${SESSION_KEY}\n` }),
    absent: (ws) => `${ws}/leak.txt`,
  },
  {
    name: "another configured provider's key in write_file content",
    tool: "write_file",
    args: () => ({ path: "leak.txt", content: `OPENAI=${OTHER_KEY}` }),
    absent: (ws) => `${ws}/leak.txt`,
  },
  {
    name: "a string shaped like a provider key in a write_file path",
    tool: "write_file",
    args: () => ({ path: `${SHAPED_KEY}.txt`, content: "x" }),
    absent: (ws) => `${ws}/${SHAPED_KEY}.txt`,
  },
  {
    name: "the session's key in run_command arguments",
    tool: "run_command",
    args: (ws) => ({ command: "touch", args: [`${ws}/${SESSION_KEY}`] }),
    absent: (ws) => `${ws}/${SESSION_KEY}`,
  },
];

for (const row of ARG_ROWS) {
  Deno.test(`secrets attack: ${row.name} is refused, nothing runs`, async () => {
    await using dir = await tempDir();
    const ws = `${dir.path}/ws`;
    await Deno.mkdir(ws);
    await Deno.mkdir(`${dir.path}/home`);
    await Deno.writeTextFile(
      `${dir.path}/home/config.toml`,
      // The exact command, so the allowlist admits it and only the secret
      // check can refuse it (a glob on touch is refused as a launcher).
      `[chat]\nallowed_commands = ["touch ${ws}/${SESSION_KEY}"]\n`,
    );
    await writeScript(dir.path, {
      tools: [row.tool],
      calls: [toolCall(row.tool, row.args(ws)), textCall("Understood.")],
    });
    const r = await runCli(
      ["chat", ...scriptFlags(dir.path), "--mode", "auto", "--json"],
      { env: keyEnv(dir.path), cwd: ws, stdin: "go\n" },
    );
    assert.equal(r.code, 0, r.stderr);
    assertNoSecret(r.stdout + r.stderr, "the output");
    const result = parseEvents(r.stdout).find((e) =>
      e.type === "agent:tool_result"
    );
    assert.ok(result?.type === "agent:tool_result", r.stdout);
    assert.equal(result.success, false);
    assert.match(
      JSON.stringify(result),
      /API key or a string shaped like one/,
    );
    await assert.rejects(Deno.lstat(row.absent(ws)), Deno.errors.NotFound);
  });
}

const SAID = `Here: ${SESSION_KEY}, ${OTHER_KEY} and ${SHAPED_KEY}.`;

Deno.test("secrets attack: keys in model and user text are kept redacted (events, history.db, chat-show, export)", async () => {
  await using dir = await tempDir();
  await writeScript(dir.path, { tools: [], calls: [textCall(SAID)] });
  const env = keyEnv(dir.path);
  const r = await chatJson(dir.path, `my key is ${SESSION_KEY}`);
  assertNoSecret(r.stdout + r.stderr, "the NDJSON");
  assert.match(r.stdout, /Here: \[redacted\], \[redacted\] and \[redacted\]\./);
  const id = parseEvents(r.stdout)[0]?.sessionId;
  assert.ok(typeof id === "string");
  const db = new TextDecoder("latin1").decode(
    await Deno.readFile(`${dir.path}/home/history.db`),
  );
  assertNoSecret(db, "history.db");
  const show = await runCli(["chat-show", id], { env, cwd: dir.path });
  assert.equal(show.code, 0, show.stderr);
  assert.match(show.stdout, /\[redacted\]/);
  assertNoSecret(show.stdout + show.stderr, "chat-show");
  const exported = await runCli(["chat-export", id, "-q"], {
    env,
    cwd: dir.path,
  });
  assert.equal(exported.code, 0, exported.stderr);
  const yaml = await Deno.readTextFile(`${dir.path}/${id}.relavium.yaml`);
  assertNoSecret(yaml, "the export");
});

Deno.test("secrets attack: --record redacts every configured key, not only the session's", async () => {
  await using dir = await tempDir();
  const cassette = await recordOneTurn(dir.path, {
    secrets: [SESSION_KEY, OTHER_KEY],
    key: SESSION_KEY,
    userText: `use ${OTHER_KEY}`,
    said: SAID,
  });
  assertNoSecret(cassette, "the cassette");
});

const FAULT_ROWS: { name: string; argv: string[] }[] = [
  {
    name: "the session's key as an agent id",
    argv: ["chat", "--agent", SESSION_KEY, "--json"],
  },
  {
    name: "a string shaped like a key as a session id",
    argv: ["chat-show", SHAPED_KEY],
  },
];

for (const row of FAULT_ROWS) {
  Deno.test(`secrets attack: an error text never shows a key (${row.name})`, async () => {
    await using dir = await tempDir();
    const r = await runCli(row.argv, { env: keyEnv(dir.path), cwd: dir.path });
    assert.equal(r.code, 2, r.stderr);
    assert.match(r.stderr, /\[redacted\]/);
    assertNoSecret(r.stdout + r.stderr, "the error text");
  });
}

Deno.test("secrets attack: an error text never shows a custom provider's key ([[providers]] api_key_env) once the config is read", async () => {
  await using dir = await tempDir();
  const custom = "mine-key-value-0123456789";
  await write(
    `${dir.path}/home/config.toml`,
    '[[providers]]\nid = "mine"\nkind = "openai-compatible"\nbase_url = "https://mine.example/v1"\napi_key_env = "MY_LLM_TOKEN"\n',
  );
  const r = await runCli(["chat", "--agent", custom, "--json"], {
    env: { RELAVIUM_HOME: `${dir.path}/home`, MY_LLM_TOKEN: custom },
    cwd: dir.path,
  });
  assert.equal(r.code, 2, r.stderr);
  assert.match(r.stderr, /\[redacted\]/);
  assert.ok(!(r.stdout + r.stderr).includes(custom), r.stderr);
});

Deno.test("secrets attack: a library host's own secrets are redacted from its events and rows", async () => {
  const own = "library-secret-value-42";
  const cassette = parseCassette(
    JSON.stringify({
      schema_version: "1.0",
      provider: "openai",
      calls: [[
        { type: "text_delta", text: `${own} and ${SHAPED_KEY}` },
        {
          type: "stop",
          stopReason: "stop",
          usage: { inputTokens: 3, outputTokens: 1 },
        },
      ]],
    }),
    "c.json",
  );
  assert.ok(cassette.ok);
  const store = createMemoryStore();
  const live = openSession({
    store,
    runtime: denoRuntime({ cassette: cassette.value }),
    agent: {
      id: "mini",
      model: "gpt-5.4-mini",
      provider: "openai",
      system_prompt: "Be terse.",
    },
    secrets: [own],
  });
  await live.session.sendMessage(`remember ${own}`);
  live.close();
  const events: unknown[] = [];
  for await (const e of live.events) events.push(e);
  const kept = JSON.stringify([events, store.load(live.sessionId)]);
  assert.ok(!kept.includes(own) && !kept.includes(SHAPED_KEY), kept);
  assert.match(kept, /\[redacted\] and \[redacted\]/);
});

for (
  const [name, key] of [
    ["the session's key", SESSION_KEY],
    ["a key-shaped string", SHAPED_KEY],
  ] as const
) {
  Deno.test(`secrets attack: ${name} streamed split across token deltas is redacted in the token events and on the terminal`, async () => {
    await using dir = await tempDir();
    const cut = Math.floor(key.length / 2);
    await writeScript(dir.path, {
      tools: [],
      calls: [{
        chunks: [
          { type: "text_delta", text: `Here it is: ${key.slice(0, cut)}` },
          { type: "text_delta", text: `${key.slice(cut)} and more.` },
          {
            type: "stop",
            stopReason: "stop",
            usage: { inputTokens: 5, outputTokens: 5 },
          },
        ],
      }],
    });
    const json = await chatJson(dir.path, "show me");
    const text = parseEvents(json.stdout).flatMap((e) =>
      e.type === "agent:token" ? [e.token] : []
    ).join("");
    assert.equal(text, "Here it is: [redacted] and more.");
    assertNoSecret(json.stdout, "the token events");
    const plain = await runCli(["chat", ...scriptFlags(dir.path)], {
      env: keyEnv(dir.path),
      cwd: dir.path,
      stdin: "show me\n",
    });
    assert.match(plain.stdout, /Here it is: \[redacted\] and more\./);
    assertNoSecret(plain.stdout + plain.stderr, "the terminal");
  });
}

Deno.test("secrets attack: a key streamed split across reasoning deltas is redacted in the reasoning events", async () => {
  await using dir = await tempDir();
  const cut = Math.floor(SESSION_KEY.length / 2);
  await writeScript(dir.path, {
    tools: [],
    calls: [{
      chunks: [
        {
          type: "reasoning_delta",
          id: "r1",
          text: `I could use ${SESSION_KEY.slice(0, cut)}`,
        },
        {
          type: "reasoning_delta",
          id: "r1",
          text: `${SESSION_KEY.slice(cut)} here.`,
        },
        { type: "reasoning_end", id: "r1" },
        { type: "text_delta", text: "No." },
        {
          type: "stop",
          stopReason: "stop",
          usage: { inputTokens: 5, outputTokens: 5 },
        },
      ],
    }],
  });
  const r = await chatJson(dir.path, "think");
  const events = parseEvents(r.stdout);
  const thought = events.flatMap((e) =>
    e.type === "agent:reasoning" ? [e.text] : []
  ).join("");
  assert.equal(thought, "I could use [redacted] here.");
  const said = events.flatMap((e) => e.type === "agent:token" ? [e.token] : [])
    .join("");
  assert.equal(said, "No.");
  assertNoSecret(r.stdout, "the reasoning events");
});

Deno.test("secrets attack: the shortest secrets are caught whole (an 8-character key, a 23-character key shape)", () => {
  const { redact } = createSecretScreen(["q7w8e9r0"]);
  assert.equal(redact("q7w8e9r0"), "[redacted]");
  assert.equal(redact("q7w8e9r"), "q7w8e9r", "shorter than the key");
  const shape = "sk-abcdefghij0123456789";
  assert.equal(shape.length, 23);
  assert.equal(redact(shape), "[redacted]");
  assert.equal(redact(shape.slice(0, 22)), shape.slice(0, 22), "one short");
  const onlyShapes = createSecretScreen([]);
  assert.equal(onlyShapes.redact(shape), "[redacted]");
  assert.equal(onlyShapes.isSecret("sk-abc"), false);
});
