/**
 * Attack table F21: a configured key reaching the model through a tool's
 * result (a file holding it, a file named after it), and encodings of a
 * key (base64, base64url, percent, hex) moved into a tool's arguments or
 * said by the model. The model's next request never carries the key; an
 * encoded key in arguments is refused and nothing runs; events and
 * recordings keep none of them.
 */
import assert from "node:assert/strict";
import {
  agentRunOnFakeAnthropic,
  anthropicReadNotes,
  fixture,
  serve,
  sse,
} from "../cli/_fake_providers.ts";
import { parseEvents, runCli, tempDir, write } from "../cli/_helpers.ts";
import {
  recordOneTurn,
  scriptFlags,
  textCall,
  toolCall,
  writeScript,
} from "./_kit.ts";

/** The session's own key: not shaped like a provider key. */
const KEY = "relavium-test-key-7f3a9c2b1e";

const bytes = new TextEncoder().encode(KEY);
const hex = [...bytes].map((b) => b.toString(16).padStart(2, "0")).join("");
const ENCODED: Record<string, string> = {
  base64: btoa(KEY),
  "base64 at an offset": btoa(`id:${KEY}`).slice(4),
  base64url: btoa(`ab${KEY}`).replaceAll("+", "-").replaceAll("/", "_"),
  percent: [...bytes].map((b) => `%${b.toString(16).toUpperCase()}`).join(""),
  "lower-case percent": [...bytes].map((b) => `%${b.toString(16)}`).join(""),
  hex,
  "upper-case hex": hex.toUpperCase(),
};

/** Every form a key must not be kept in. */
function assertNoKey(text: string, where: string): void {
  assert.ok(!text.includes(KEY), `the key reached ${where}:\n${text}`);
  for (const [name, form] of Object.entries(ENCODED)) {
    // The offset and padded forms hold the key's core, checked by its own row.
    const core = name.includes("offset") || name === "base64url"
      ? form.slice(4, -4)
      : form;
    assert.ok(!text.includes(core), `the ${name} key reached ${where}`);
  }
}

/** A scripted read of `notes.txt` by the tool `tool`, then a text answer. */
function readScript(tool: string): Uint8Array {
  const text = new TextDecoder().decode(anthropicReadNotes());
  return new TextEncoder().encode(
    text.replaceAll('"name":"read_file"', `"name":"${tool}"`),
  );
}

interface ResultRow {
  name: string;
  tool: string;
  /** Plants `notes.txt` (a file or a folder) in `dir`. */
  plant: (dir: string) => Promise<void>;
}

const RESULT_ROWS: ResultRow[] = [
  {
    name: "read_file of a file holding the key",
    tool: "read_file",
    plant: (dir) => write(`${dir}/notes.txt`, `API_KEY=${KEY}\nother line\n`),
  },
  {
    name: "read_file of a file holding the key in base64",
    tool: "read_file",
    plant: (dir) => write(`${dir}/notes.txt`, `token: ${ENCODED.base64}\n`),
  },
  {
    name: "read_file of a file holding the key in hex",
    tool: "read_file",
    plant: (dir) => write(`${dir}/notes.txt`, `hex=${hex}\n`),
  },
  {
    name: "list_directory of a folder holding a file named after the key",
    tool: "list_directory",
    plant: async (dir) => {
      await Deno.mkdir(`${dir}/notes.txt`);
      await write(`${dir}/notes.txt/${KEY}`, "x");
      await write(`${dir}/notes.txt/plain.txt`, "y");
    },
  },
];

for (const row of RESULT_ROWS) {
  Deno.test(`F21 attack: ${row.name} never reaches the model`, async () => {
    await using dir = await tempDir();
    await row.plant(dir.path);
    const anthropic = serve([
      sse(readScript(row.tool)),
      sse(fixture("anthropic", "text.sse")),
    ]);
    try {
      const r = await agentRunOnFakeAnthropic(dir.path, anthropic.url, {
        stdin: "read it\n",
        tools: [row.tool],
        key: KEY,
      });
      assert.equal(r.code, 0, r.stderr);
      assert.equal(anthropic.requests.length, 2, "the tool round went back");
      const second = anthropic.requests[1]?.body ?? "";
      assert.match(second, /\[redacted\]/, "the result reached the model");
      assertNoKey(second, "the model's request");
      assertNoKey(r.stdout + r.stderr, "the output");
    } finally {
      await anthropic.close();
    }
  });
}

for (const [name, form] of Object.entries(ENCODED)) {
  Deno.test(`F21 attack: the ${name} key in write_file content is refused and not kept`, async () => {
    await using dir = await tempDir();
    const ws = `${dir.path}/ws`;
    await Deno.mkdir(ws);
    await writeScript(dir.path, {
      tools: ["write_file"],
      calls: [
        toolCall("write_file", { path: "leak.txt", content: `k=${form}` }),
        textCall(`Done: ${form}`),
      ],
    });
    const r = await runCli(
      ["chat", ...scriptFlags(dir.path), "--mode", "auto", "--json"],
      {
        env: { RELAVIUM_HOME: `${dir.path}/home`, ANTHROPIC_API_KEY: KEY },
        cwd: ws,
        stdin: "go\n",
      },
    );
    assert.equal(r.code, 0, r.stderr);
    const result = parseEvents(r.stdout).find((e) =>
      e.type === "agent:tool_result"
    );
    assert.ok(result?.type === "agent:tool_result", r.stdout);
    assert.equal(result.success, false);
    assert.match(JSON.stringify(result), /API key or a string shaped like one/);
    await assert.rejects(Deno.lstat(`${ws}/leak.txt`), Deno.errors.NotFound);
    assertNoKey(r.stdout + r.stderr, "the events");
    const db = new TextDecoder("latin1").decode(
      await Deno.readFile(`${dir.path}/home/history.db`),
    );
    assertNoKey(db, "history.db");
  });
}

Deno.test("F21 attack: --record keeps no encoding of a configured key", async () => {
  await using dir = await tempDir();
  const cassette = await recordOneTurn(dir.path, {
    secrets: [KEY],
    key: KEY,
    userText: `use ${ENCODED.hex}`,
    said: Object.values(ENCODED).join(" "),
  });
  assert.match(cassette, /\[redacted\]/);
  assertNoKey(cassette, "the cassette");
});
