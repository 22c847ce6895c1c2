/**
 * Attack table, faults: what a broken or hostile file (a cassette, a
 * provider endpoint's DNS answer, a tampered session store) can make the
 * CLI do. One row per vector, each driven through `main` in process: the
 * row's exit code and stderr, never a stack trace or an internal error,
 * and nothing already stored changed.
 */
import assert from "node:assert/strict";
import { DatabaseSync } from "node:sqlite";
import {
  runCli,
  type RunOptions,
  tempDir,
  textCassette,
  write,
} from "../cli/_helpers.ts";
import { STORE_DDL } from "../../store/ddl.ts";
import { seedHistory } from "./_kit.ts";

const AGENT =
  "id: mini\nname: Mini\nmodel: gpt-5.4-mini\nprovider: openai\nsystem_prompt: Be terse.\n";

const STOP = {
  type: "stop",
  stopReason: "stop",
  usage: { inputTokens: 1, outputTokens: 1 },
};

/** One vector: files to plant, the command, and what it must end with. */
interface Row {
  name: string;
  /** Files (relative to the temp dir) written before the run. */
  files?: Record<string, string>;
  /** Runs after the files, before the command (e.g. to tamper a store). */
  setup?: (dir: string) => Promise<void>;
  argv: string[];
  options?: Omit<RunOptions, "cwd" | "fetch">;
  /** Every provider request is recorded and refused; with this, none may be made. */
  noRequest?: true;
  code: number;
  /** Every pattern must match stderr. */
  stderr: RegExp[];
  /** Whether the run may add to session `s1` (a resume); else `s1` must not change. */
  s1Changes?: true;
  /** Further checks after the run. */
  after?: (dir: string, r: { stdout: string; stderr: string }) => Promise<void>;
}

function cassette(doc: unknown): string {
  return JSON.stringify(doc);
}

const GW_AGENT =
  "id: gw\nname: Gw\nmodel: m\nprovider: gw\nsystem_prompt: Be terse.\n";

/** A global (user's) config declaring provider `gw` at `url`. */
function gwConfig(url: string, allowLocal: boolean): string {
  return `[[providers]]\nid = "gw"\nkind = "openai-compatible"\nbase_url = "${url}"\n${
    allowLocal ? "allow_local = true\n" : ""
  }`;
}

/** A provider base URL at a metadata or platform endpoint: refused even with allow_local. */
function metadataProvider(name: string, url: string): Row {
  return {
    name: `ssrf: a provider at ${name} is refused even with allow_local`,
    files: {
      "a.agent.yaml": GW_AGENT,
      "home/config.toml": gwConfig(url, true),
    },
    argv: ["agent", "run", "a.agent.yaml"],
    options: { stdin: "hi\n", env: { RELAVIUM_GW_API_KEY: "k" } },
    noRequest: true,
    code: 2,
    stderr: [/base_url.*must not point at a cloud metadata address/],
  };
}

/** A provider on a public-looking name whose DNS check cannot vouch for it. */
function unresolvedProvider(
  name: string,
  resolveDns: (name: string) => Promise<string[]>,
  why: RegExp,
): Row {
  return {
    name: `ssrf: a provider name that ${name} is refused before any request`,
    files: {
      "a.agent.yaml": GW_AGENT,
      "home/config.toml": gwConfig("https://gw.example.com/v1", false),
    },
    argv: ["--json", "agent", "run", "a.agent.yaml"],
    options: {
      stdin: "hi\n",
      env: { RELAVIUM_GW_API_KEY: "k" },
      resolveDns,
    },
    noRequest: true,
    code: 2,
    stderr: [/"code":"provider_config"/, why],
  };
}

const TOOL_AGENT =
  "id: helper\nmodel: claude-haiku-4-5\nprovider: anthropic\nsystem_prompt: Help.\ntools:\n  - http_request\n";

/** The model asks `http_request` for a metadata URL: refused as `ssrf_blocked`. */
function metadataFetch(url: string): Row {
  const call = [
    { type: "tool_call_start", id: "c1", name: "http_request" },
    {
      type: "tool_call_delta",
      id: "c1",
      argsJsonDelta: JSON.stringify({ url }),
    },
    { type: "tool_call_end", id: "c1" },
    {
      type: "stop",
      stopReason: "tool_use",
      usage: { inputTokens: 1, outputTokens: 1 },
    },
  ];
  return {
    name: `ssrf: http_request to ${url} is refused as ssrf_blocked`,
    files: {
      "helper.agent.yaml": TOOL_AGENT,
      "c.json": cassette({
        schema_version: "1.0",
        provider: "anthropic",
        calls: [call],
      }),
    },
    argv: "--json agent run helper.agent.yaml --fixture c.json --mode auto"
      .split(" "),
    options: { stdin: "fetch it\n" },
    // A denied tool call ends the turn (tool_denied): exit 1.
    code: 1,
    stderr: [],
    after: (_dir, r) => {
      const results = r.stdout.split("\n").filter((l) =>
        l.includes('"agent:tool_result"')
      );
      assert.equal(results.length, 1, r.stdout);
      assert.match(results[0] ?? "", /denied \(ssrf_blocked\)/);
      return Promise.resolve();
    },
  };
}

/**
 * Seeds `home/history.db` with session `s1` (one turn, the one that must
 * survive every row) and `s2` (newer, the one tampered with), then runs
 * `tamper` on a raw connection with CHECK constraints off.
 */
function seedStore(tamper: string): (dir: string) => Promise<void> {
  return async (dir) => {
    const db = new DatabaseSync(
      await seedHistory(dir, ["first question", "second question"], {
        ticking: true,
      }),
    );
    db.exec("PRAGMA ignore_check_constraints = ON");
    db.exec("PRAGMA foreign_keys = OFF");
    if (tamper !== "") db.exec(tamper);
    db.close();
  };
}

/**
 * What a row must leave as it was: the store file's mode, and (when it
 * reads) session `s1`'s row and messages and how many sessions there are.
 * Rows that delete or resume change only what they name.
 */
async function storedState(dir: string): Promise<string> {
  const path = `${dir}/home/history.db`;
  let info: Deno.FileInfo;
  try {
    info = await Deno.lstat(path);
  } catch {
    return "no store";
  }
  if (!info.isFile) return `not a file: ${info.mode}`;
  const bytes = await Deno.readFile(path);
  const header = new TextDecoder().decode(bytes.subarray(0, 15));
  if (header !== "SQLite format 3") {
    return `mode ${info.mode}, ${bytes.length} bytes`;
  }
  const db = new DatabaseSync(path, { readOnly: true });
  try {
    const q = (sql: string): unknown => {
      try {
        return db.prepare(sql).all();
      } catch (e) {
        return String(e);
      }
    };
    return JSON.stringify([
      info.mode,
      q("SELECT * FROM agent_sessions WHERE id = 's1'"),
      q("SELECT * FROM session_messages WHERE session_id = 's1' ORDER BY sequence_number"),
      q("SELECT COUNT(*) FROM agent_sessions"),
    ]);
  } finally {
    db.close();
  }
}

/** A tampered `s2` row: listed without it, named where it is the target. */
function damagedRow(column: string, tamper: string, what: string): Row[] {
  const setup = seedStore(tamper);
  const named = new RegExp(
    `Cannot read session s2: its stored row is damaged \\(agent_sessions\\.${column} ${what}\\)`,
  );
  return [
    {
      name: `store: chat-list skips a row with a bad ${column} and names it`,
      setup,
      argv: ["chat-list"],
      code: 0,
      stderr: [
        new RegExp(
          `^Skipped a damaged session row \\(id s2\\): agent_sessions\\.${column} is invalid\\n$`,
        ),
      ],
      after: (_dir, r) => {
        assert.match(
          r.stdout,
          /^s1 {2}\S+ {2}1 turn {2}\S+ {2}mini {2}"first question"\n$/,
        );
        assert.doesNotMatch(r.stdout, /s2/);
        return Promise.resolve();
      },
    },
    {
      name:
        `store: chat-show of a row with a bad ${column} names the row and column`,
      setup,
      argv: ["chat-show", "s2"],
      code: 1,
      stderr: [named],
    },
    {
      name:
        `store: chat-resume of a row with a bad ${column} names the row and column`,
      setup,
      files: { "c.json": textCassette("openai", ["Resumed."]) },
      argv: ["chat-resume", "s2", "--fixture", "c.json"],
      options: { stdin: "again\n" },
      code: 1,
      stderr: [named],
    },
    {
      name:
        `store: chat-export of a row with a bad ${column} names the row and column`,
      setup,
      argv: ["chat-export", "s2", "--out", "s2.relavium.yaml"],
      code: 1,
      stderr: [named],
    },
    {
      name: `store: chat-delete removes a session with a bad ${column}`,
      setup,
      argv: ["chat-delete", "s2", "--yes"],
      code: 0,
      stderr: [/^Deleted session s2\n$/],
      after: async (dir) => {
        const listed = await runCli(["chat-list"], {
          env: { RELAVIUM_HOME: `${dir}/home` },
          cwd: dir,
        });
        assert.equal(listed.stderr, "");
        assert.match(listed.stdout, /^s1 /);
      },
    },
    {
      name: `store: chat-resume --last passes over a row with a bad ${column}`,
      setup,
      files: { "c.json": textCassette("openai", ["Resumed."]) },
      argv: ["chat-resume", "--last", "--fixture", "c.json"],
      options: { stdin: "again\n" },
      code: 0,
      stderr: [/Skipped a damaged session row \(id s2\)/],
      after: (_dir, r) => {
        assert.match(r.stdout, /Resumed\./);
        return Promise.resolve();
      },
      s1Changes: true,
    },
  ];
}

/** A store file the open must refuse, naming the cause, for a read and a write. */
function openFault(
  name: string,
  setup: (dir: string) => Promise<void>,
  cause: RegExp,
): Row[] {
  return [["chat-list"], ["chat-show", "s1"], [
    "chat",
    "--fixture",
    "c.json",
  ]].map((argv) => ({
    name: `store: ${argv[0]} names the open fault: ${name}`,
    setup,
    files: { "c.json": textCassette("anthropic", ["Hello."]) },
    argv,
    options: { stdin: "hi\n" },
    code: 1,
    stderr: [
      new RegExp(
        `^error: Cannot open the session store .*history\\.db: ${cause.source}`,
      ),
    ],
  }));
}

async function plant(dir: string, bytes: Uint8Array): Promise<void> {
  await Deno.mkdir(`${dir}/home`, { recursive: true });
  await Deno.writeFile(`${dir}/home/history.db`, bytes);
}

/**
 * Another connection holds the store's write lock for the whole run: the
 * open waits boundedly, says it is waiting, then names the lock.
 */
function lockedStore(): Row {
  let holder: DatabaseSync | undefined;
  return {
    name: "store: a held write lock is waited for by chat, said, and named",
    setup: async (dir) => {
      await seedStore("")(dir);
      holder = new DatabaseSync(`${dir}/home/history.db`);
      holder.exec("BEGIN IMMEDIATE");
    },
    files: { "c.json": textCassette("anthropic", ["Hello."]) },
    argv: ["chat", "--fixture", "c.json"],
    options: { stdin: "hi\n" },
    code: 1,
    stderr: [
      /^Waiting for the session store .*history\.db: it is locked by another process \(giving up after about 10 s\)\n/,
      /Cannot open the session store .*history\.db: locked by another process \(the wait for it ran out\)/,
    ],
    after: () => {
      holder?.exec("ROLLBACK");
      holder?.close();
      return Promise.resolve();
    },
  };
}

const rows: Row[] = [
  {
    name: "cassette: a call without a terminal chunk is invalid at load",
    files: {
      "mini.agent.yaml": AGENT,
      "c.json": cassette({
        schema_version: "1.0",
        provider: "openai",
        calls: [[{ type: "text_delta", text: "cut off" }]],
      }),
    },
    argv: ["agent", "run", "mini.agent.yaml", "--fixture", "c.json"],
    options: { stdin: "hi\n" },
    code: 2,
    stderr: [
      /Invalid cassette: .*c\.json: calls\[0\]: no terminal stop\/error/,
    ],
  },
  {
    name: "cassette: an empty v1.1 provider-queue call is invalid at load",
    files: {
      "mini.agent.yaml": AGENT,
      "c.json": cassette({
        schema_version: "1.1",
        providers: {
          openai: { calls: [[{ type: "text_delta", text: "a" }, STOP], []] },
        },
      }),
    },
    argv: ["agent", "run", "mini.agent.yaml", "--fixture", "c.json"],
    options: { stdin: "hi\n" },
    code: 2,
    stderr: [/c\.json: providers\.openai\.calls\[1\]: no terminal stop\/error/],
  },
  {
    name:
      "cassette: a v1.1 {chunks} call without a terminal is invalid at load",
    files: {
      "mini.agent.yaml": AGENT,
      "c.json": cassette({
        schema_version: "1.1",
        provider: "openai",
        calls: [{ chunks: [{ type: "text_delta", text: "a" }] }],
      }),
    },
    argv: ["chat", "--fixture", "c.json"],
    options: { stdin: "hi\n" },
    code: 2,
    // Refused before a session exists: no store was created.
    after: async (dir) => {
      await assert.rejects(
        () => Deno.stat(`${dir}/home/history.db`),
        Deno.errors.NotFound,
      );
    },
    stderr: [/c\.json: calls\[0\]\.chunks: no terminal stop\/error/],
  },
  metadataProvider("the Azure wireserver", "http://168.63.129.16/v1"),
  metadataProvider("Alibaba's metadata", "http://100.100.100.200/v1"),
  metadataProvider("Oracle Classic's metadata", "http://192.0.0.192/v1"),
  metadataProvider("a mapped wireserver", "http://[::ffff:168.63.129.16]/v1"),
  metadataProvider("GCE's IPv6 metadata", "http://[fd20:ce::254]/v1"),
  metadataProvider("metadata.goog", "https://metadata.goog/v1"),
  metadataProvider("instance-data", "http://instance-data/v1"),
  unresolvedProvider(
    "has no DNS answers (hosts file only)",
    () => Promise.resolve([]),
    /gw\.example\.com has no DNS answers/,
  ),
  unresolvedProvider(
    "fails to resolve",
    () => Promise.reject(new Deno.errors.NotCapable("net")),
    /gw\.example\.com could not be checked/,
  ),
  unresolvedProvider(
    "resolves to the Azure wireserver",
    () => Promise.resolve(["203.0.113.7", "168.63.129.16"]),
    /resolves to a private, loopback or metadata address/,
  ),
  metadataFetch("https://168.63.129.16/machine?comp=goalstate"),
  metadataFetch("https://[64:ff9b::a83f:8110]/"),
  metadataFetch("https://metadata.goog/computeMetadata/v1/"),
  metadataFetch("https://instance-data/latest/meta-data/"),
  metadataFetch("https://100.100.100.200/latest/meta-data/"),
  ...damagedRow(
    "status",
    "UPDATE agent_sessions SET status = 'bogus' WHERE id = 's2'",
    "is invalid",
  ),
  ...damagedRow(
    "created_at",
    "UPDATE agent_sessions SET created_at = 'yesterday' WHERE id = 's2'",
    "is invalid",
  ),
  ...damagedRow(
    "agent_slug",
    "UPDATE agent_sessions SET agent_slug = x'41' WHERE id = 's2'",
    "is invalid",
  ),
  {
    name: "store: chat-show of a row whose context_json is not JSON names it",
    setup: seedStore(
      "UPDATE agent_sessions SET context_json = '{bad' WHERE id = 's2'",
    ),
    argv: ["chat-show", "s2"],
    code: 1,
    stderr: [/\(agent_sessions\.context_json is not valid JSON\)/],
  },
  {
    name:
      "store: chat-show of a session with a damaged message row names the row",
    setup: seedStore(
      "UPDATE session_messages SET content_parts = '{bad' WHERE session_id = 's2' AND sequence_number = 1",
    ),
    argv: ["chat-show", "s2"],
    code: 1,
    stderr: [
      /Cannot read session s2: its session_messages row at sequence_number 1 is damaged \(malformed_json\)/,
    ],
  },
  {
    name: "store: chat-delete removes a session with a damaged message row",
    setup: seedStore(
      "UPDATE session_messages SET content_parts = '{bad' WHERE session_id = 's2' AND sequence_number = 1",
    ),
    argv: ["chat-delete", "s2", "--yes"],
    code: 0,
    stderr: [/^Deleted session s2\n$/],
  },
  {
    name: "store: chat-list names a row whose id is unusable by its rowid",
    setup: seedStore("UPDATE agent_sessions SET id = '' WHERE id = 's2'"),
    argv: ["chat-list"],
    code: 0,
    stderr: [
      /^Skipped a damaged session row \(rowid \d+\): agent_sessions\.id is invalid\n$/,
    ],
  },
  ...openFault(
    "garbage",
    (dir) => plant(dir, new TextEncoder().encode("garbage ".repeat(600))),
    /not a SQLite database/,
  ),
  ...openFault(
    "a zero-filled file",
    (dir) => plant(dir, new Uint8Array(8192)),
    /not a SQLite database/,
  ),
  ...openFault(
    "a directory",
    (dir) => Deno.mkdir(`${dir}/home/history.db`, { recursive: true }),
    /.*history\.db is a directory/,
  ),
  ...openFault(
    "a renamed column",
    seedStore("ALTER TABLE agent_sessions RENAME COLUMN title TO name"),
    /.*agent_sessions\.title is missing/,
  ),
  {
    name:
      "store: a schema with an unknown NOT NULL column is refused before any write",
    setup: async (dir) => {
      await Deno.mkdir(`${dir}/home`, { recursive: true });
      const db = new DatabaseSync(`${dir}/home/history.db`);
      db.exec(
        (STORE_DDL[0] ?? "").replace(
          "`updated_at` integer NOT NULL,",
          "`updated_at` integer NOT NULL,\n\t`owner` text NOT NULL,",
        ),
      );
      db.close();
    },
    files: { "c.json": textCassette("anthropic", ["Hello."]) },
    argv: ["chat", "--fixture", "c.json"],
    options: { stdin: "hi\n" },
    code: 1,
    stderr: [
      /cannot write its schema: agent_sessions\.owner is a NOT NULL column without a default/,
    ],
  },
  {
    name: "store: a newer user_version is refused before any write",
    setup: seedStore("PRAGMA user_version = 3"),
    files: { "c.json": textCassette("anthropic", ["Hello."]) },
    argv: ["chat", "--fixture", "c.json"],
    options: { stdin: "hi\n" },
    code: 1,
    stderr: [
      /cannot write its schema: user_version is 3, newer than this version's 0/,
    ],
  },
  {
    name:
      "store: chat-list of a read-only store lists and leaves its mode alone",
    setup: async (dir) => {
      await seedStore("")(dir);
      await Deno.chmod(`${dir}/home/history.db`, 0o444);
    },
    argv: ["chat-list"],
    code: 0,
    stderr: [/^$/],
    after: (_dir, r) => {
      assert.match(r.stdout, /^s2 .*\ns1 /);
      return Promise.resolve();
    },
  },
  ...[["chat-list"], ["chat-show", "s1"]].map((argv): Row => ({
    name: `store: ${
      argv[0]
    } refuses a symlinked history.db without chmod-ing its target`,
    setup: async (dir) => {
      await seedStore("")(`${dir}/real`);
      await Deno.chmod(`${dir}/real/home/history.db`, 0o644);
      await Deno.mkdir(`${dir}/home`, { recursive: true });
      await Deno.symlink(
        `${dir}/real/home/history.db`,
        `${dir}/home/history.db`,
      );
    },
    argv,
    code: 1,
    stderr: [
      /history\.db: .*history\.db is a symbolic link \(the store must be a regular file; nothing was changed\)/,
    ],
    after: async (dir) => {
      const target = await Deno.stat(`${dir}/real/home/history.db`);
      assert.equal((target.mode ?? 0) & 0o777, 0o644);
    },
  })),
  ...[["chat-list"], ["chat-show", "s1"]].map((argv): Row => ({
    name: `store: ${argv[0]} of a truncated file names it corrupt`,
    setup: async (dir) => {
      await seedStore("")(dir);
      const path = `${dir}/home/history.db`;
      const bytes = await Deno.readFile(path);
      await Deno.writeFile(path, bytes.subarray(0, 4096));
    },
    argv,
    code: 1,
    stderr: [/corrupt \(the database disk image is malformed\)/],
  })),
  lockedStore(),
];

Deno.test("attacks: faults", async (t) => {
  for (const row of rows) {
    await t.step(row.name, async () => {
      await using dir = await tempDir();
      for (const [path, text] of Object.entries(row.files ?? {})) {
        await write(`${dir.path}/${path}`, text);
      }
      await row.setup?.(dir.path);
      const before = await storedState(dir.path);
      const env = { RELAVIUM_HOME: `${dir.path}/home`, NO_COLOR: "1" };
      const requests: string[] = [];
      const r = await runCli(row.argv, {
        ...row.options,
        env: { ...env, ...row.options?.env },
        cwd: dir.path,
        fetch: (url) => {
          requests.push(url);
          return Promise.reject(new TypeError("no network in this test"));
        },
      });
      assert.equal(r.code, row.code, r.stderr + r.stdout);
      for (const want of row.stderr) assert.match(r.stderr, want);
      assert.doesNotMatch(r.stderr, /Internal error|\n\s+at /);
      assert.doesNotMatch(r.stdout, /Internal error|\n\s+at /);
      if (row.noRequest) assert.deepEqual(requests, []);
      if (row.s1Changes === undefined) {
        assert.equal(
          await storedState(dir.path),
          before,
          "nothing stored changed",
        );
      }
      await row.after?.(dir.path, r);
    });
  }
});
