/**
 * Attack table F23: writer-lease faults. A chat whose lease another
 * writer took over, a lease row a hand or a bug damaged, a lease dated in
 * the future on another host: each is named with its holder (process,
 * host, since when) and how to go on, never an internal error; and
 * `chat-release` releases a stuck lease, naming what it released, while
 * refusing one that looks live unless `--force`.
 */
import assert from "node:assert/strict";
import { DatabaseSync } from "node:sqlite";
import { thisProcess } from "../../host/process_identity.ts";
import {
  parseEvents,
  runCli,
  tempDir,
  textCassette,
  write,
} from "../cli/_helpers.ts";
import { assertNoCrash, seedHistory } from "./_kit.ts";

const ISO = "20\\d\\d-\\d\\d-\\d\\dT[\\d:.]+Z";

/** Plants `s1`'s lease row as given (CHECK constraints off). */
function plantLease(
  dir: string,
  row: {
    holder?: string;
    pid: unknown;
    host: unknown;
    at: unknown;
    /** The heartbeat (default `at`). */
    beat?: unknown;
  },
): void {
  const db = new DatabaseSync(`${dir}/home/history.db`);
  try {
    db.exec("PRAGMA ignore_check_constraints = ON");
    db.prepare(
      `INSERT OR REPLACE INTO relavium_session_leases
       (session_id, holder_id, pid, hostname, acquired_at, heartbeat_at)
       VALUES ('s1', ?, ?, ?, ?, ?)`,
    ).run(
      row.holder ?? "other-holder",
      row.pid as number,
      row.host as string,
      row.at as number,
      (row.beat ?? row.at) as number,
    );
  } finally {
    db.close();
  }
}

function leaseRows(dir: string): unknown[] {
  const db = new DatabaseSync(`${dir}/home/history.db`, { readOnly: true });
  try {
    return db.prepare("SELECT * FROM relavium_session_leases").all();
  } finally {
    db.close();
  }
}

function messageCount(dir: string): unknown {
  const db = new DatabaseSync(`${dir}/home/history.db`, { readOnly: true });
  try {
    return db.prepare(
      "SELECT COUNT(*) AS n FROM session_messages WHERE session_id = 's1'",
    ).get()?.["n"];
  } finally {
    db.close();
  }
}

const DAY = 86_400_000;

interface Row {
  name: string;
  /** Plants the lease (after the seed). */
  setup?: (dir: string) => void;
  argv: string[];
  /** The chat's stdin (default one line). */
  stdin?: string | ((dir: string) => ReadableStream<Uint8Array>);
  code: number;
  stderr?: RegExp;
  /** Further checks. */
  after?: (dir: string, r: { stdout: string; stderr: string }) => void;
}

/**
 * A stdin of two lines that, when the chat asks for the second (after
 * the first turn), lets another writer take the session's lease over.
 */
function takeoverStdin(dir: string): ReadableStream<Uint8Array> {
  const lines = ["one", "two"];
  let asked = 0;
  return new ReadableStream<Uint8Array>({
    pull(controller) {
      asked++;
      if (asked === 2) {
        plantLease(dir, { pid: 4242, host: "elsewhere", at: Date.now() });
      }
      const next = lines.shift();
      if (next === undefined) controller.close();
      else controller.enqueue(new TextEncoder().encode(`${next}\n`));
    },
  }, { highWaterMark: 0 });
}

const resume = ["chat-resume", "s1", "--fixture", "c.json"];

const rows: Row[] = [
  {
    name:
      "a chat whose lease was taken over names the new holder and how to go on",
    argv: [...resume, "--json"],
    stdin: takeoverStdin,
    code: 1,
    after: (dir, r) => {
      const done = parseEvents(r.stdout).filter((e) =>
        e.type === "session:turn_completed"
      );
      assert.equal(done.length, 2, r.stdout);
      const second = done[1];
      assert.ok(second?.type === "session:turn_completed");
      assert.match(
        second.error?.message ?? "",
        new RegExp(
          `^Session s1: this chat's writer lease was taken over by process 4242 on host "elsewhere", since ${ISO}; nothing more is sent or written here: continue in that writer, or close this chat and run 'relavium chat-resume s1'$`,
        ),
      );
      assert.equal(messageCount(dir), 4, "the first turn only");
    },
  },
  {
    name: "a lease row with pid -1 is named with the release command",
    setup: (dir) => plantLease(dir, { pid: -1, host: "box", at: Date.now() }),
    argv: resume,
    code: 2,
    stderr: new RegExp(
      `^error: Session s1 is held by a damaged lease row \\(relavium_session_leases\\.pid is invalid on host "box"\\), since ${ISO}: no writer can be judged from it; if no chat has the session open, run 'relavium chat-release s1' to clear it, then try again\\n$`,
    ),
  },
  {
    name: "a lease row with a non-numeric heartbeat is named",
    setup: (dir) =>
      plantLease(dir, { pid: 7, host: "box", at: Date.now(), beat: "soon" }),
    argv: resume,
    code: 2,
    stderr: new RegExp(
      `^error: Session s1 is held by a damaged lease row \\(relavium_session_leases\\.heartbeat_at is invalid, process 7 on host "box"\\), since ${ISO}: .*'relavium chat-release s1'`,
    ),
  },
  {
    name:
      "a lease dated in the future on another host is named with the release command",
    setup: (dir) =>
      plantLease(dir, { pid: 4242, host: "elsewhere", at: Date.now() + DAY }),
    argv: resume,
    code: 2,
    stderr: new RegExp(
      `^error: Session s1 is open in another writer \\(process 4242 on host "elsewhere", since ${ISO}\\) whose heartbeat is dated in the future \\(${ISO}\\), so its lease never expires on its own: close that chat first, or, if it is gone, run 'relavium chat-release s1', then try again\\n$`,
    ),
  },
  {
    name: "chat-release releases a lease dated in the future and names it",
    setup: (dir) =>
      plantLease(dir, { pid: 4242, host: "elsewhere", at: Date.now() + DAY }),
    argv: ["chat-release", "s1"],
    code: 0,
    stderr: new RegExp(
      `^Released the writer lease of session s1 \\(process 4242 on host "elsewhere", since ${ISO}\\)\\n$`,
    ),
    after: (dir) => assert.deepEqual(leaseRows(dir), []),
  },
  {
    name: "chat-release clears a damaged lease row and names it",
    setup: (dir) => plantLease(dir, { pid: -1, host: "box", at: Date.now() }),
    argv: ["chat-release", "s1"],
    code: 0,
    stderr:
      /^Released the writer lease of session s1 \(a damaged lease row \(relavium_session_leases\.pid is invalid on host "box"\), since /,
    after: (dir) => assert.deepEqual(leaseRows(dir), []),
  },
  {
    name: "chat-release refuses a live process of this host without --force",
    setup: (dir) =>
      plantLease(dir, {
        pid: Deno.pid,
        host: thisProcess().hostname ?? "",
        at: Date.now(),
      }),
    argv: ["chat-release", "s1"],
    code: 2,
    stderr: new RegExp(
      `^error: Session s1 looks open in a live chat \\(process ${Deno.pid} on host "[^"]*", since ${ISO}: process ${Deno.pid} of this host is running\\): close that chat instead, or run 'relavium chat-release s1 --force'`,
    ),
    after: (dir) => assert.equal(leaseRows(dir).length, 1),
  },
  {
    name: "chat-release --force releases a live process's lease, named",
    setup: (dir) =>
      plantLease(dir, {
        pid: Deno.pid,
        host: thisProcess().hostname ?? "",
        at: Date.now(),
      }),
    argv: ["chat-release", "s1", "--force"],
    code: 0,
    stderr: new RegExp(
      `^Released the writer lease of session s1 \\(process ${Deno.pid} on host`,
    ),
    after: (dir) => assert.deepEqual(leaseRows(dir), []),
  },
];

Deno.test("F23 attack: writer-lease faults", async (t) => {
  for (const row of rows) {
    await t.step(row.name, async () => {
      await using dir = await tempDir();
      await seedHistory(dir.path);
      await write(
        `${dir.path}/c.json`,
        textCassette("openai", ["Again.", "Never."]),
      );
      row.setup?.(dir.path);
      const r = await runCli(row.argv, {
        env: { RELAVIUM_HOME: `${dir.path}/home`, NO_COLOR: "1" },
        cwd: dir.path,
        stdin: typeof row.stdin === "function"
          ? row.stdin(dir.path)
          : row.stdin ?? "again\n",
      });
      assert.equal(r.code, row.code, r.stderr + r.stdout);
      if (row.stderr !== undefined) assert.match(r.stderr, row.stderr);
      assertNoCrash(r.stdout + r.stderr);
      assert.doesNotMatch(r.stdout + r.stderr, /Cannot record the provider/);
      row.after?.(dir.path, r);
    });
  }
});
