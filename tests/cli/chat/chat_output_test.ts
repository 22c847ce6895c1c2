/**
 * What the terminal chat shows while a turn runs: the live status line
 * (only when stderr is a terminal, never on stdout, never under
 * `--json`), tool lines with their target and one-line result, and a
 * retry's countdown. The clock and the redraw timer are the io's, so
 * nothing here waits for real time.
 */
import assert from "node:assert/strict";
import { createBufferedIo, type Ticker } from "../../../cli/io/io.ts";
import { createPlainPrinter } from "../../../cli/io/output.ts";
import { createStatusLine, statusLabel } from "../../../cli/chat/status.ts";
import {
  TOOL_LINES,
  toolResultLine,
  toolStartLine,
} from "../../../cli/chat/tool_line.ts";
import { main } from "../../../cli/main.ts";
import {
  lineStdin,
  parseEvents,
  tempDir,
  tokenEvent,
  write,
} from "../_helpers.ts";
import {
  scriptFlags,
  textCall,
  toolCall,
  writeScript,
} from "../../attacks/_kit.ts";

const ENV = { sessionId: "s", timestamp: "2026-01-01T00:00:00.000Z" };
const CLEAR = "\r\x1b[2K";

/** Terminal text with the line-clearing sequence spelt `<clear>`. */
function shown(text: string): string {
  return text.replaceAll(CLEAR, "<clear>");
}

/** A ticker the test fires by hand. */
function manualTicker(): { every: Ticker; fire(): void; live(): number } {
  const ticks = new Set<() => void>();
  return {
    every(_ms, tick) {
      ticks.add(tick);
      return () => ticks.delete(tick);
    },
    fire() {
      for (const t of [...ticks]) t();
    },
    live: () => ticks.size,
  };
}

Deno.test("statusLabel() says what the turn waits for", () => {
  assert.equal(
    statusLabel({ kind: "model", model: "m1" }, 0),
    "Waiting for m1",
  );
  assert.equal(
    statusLabel({ kind: "tool", tool: "run_command git status" }, 0),
    "Running run_command git status",
  );
  assert.equal(
    statusLabel({ kind: "retry", model: "m1", atMs: 4_500 }, 1_000),
    "Retrying m1 in 3.5s",
  );
});

Deno.test("createStatusLine() draws at once, redraws with the elapsed time, clears and stops", () => {
  const out: string[] = [];
  let now = 10_000;
  const ticker = manualTicker();
  const status = createStatusLine({
    write: (t) => out.push(t),
    now: () => now,
    every: ticker.every,
    columns: () => 60,
    color: false,
  });
  status.show({ kind: "model", model: "m1" });
  assert.equal(out.length, 1, "drawn at once, not at the first tick");
  assert.match(
    shown(out[0] ?? ""),
    /^<clear>. Waiting for m1 · 0\.0s · Ctrl-C to stop$/,
  );
  now += 2_300;
  ticker.fire();
  assert.match(out[1] ?? "", /Waiting for m1 · 2\.3s/);
  status.show({ kind: "tool", tool: `read_file ${"x".repeat(200)}` });
  const long = out[2] ?? "";
  assert.ok(
    [...long].length - CLEAR.length <= 59,
    "never wider than the terminal",
  );
  assert.match(long, /…/);
  status.clear();
  assert.equal(out.at(-1), CLEAR);
  assert.equal(ticker.live(), 0, "the redraw stopped");
  status.clear();
  assert.equal(
    out.filter((t) => t === CLEAR).length,
    1,
    "a second clear writes nothing",
  );
});

Deno.test("tool lines: the target as a person reads it, then the tool's summary", () => {
  const plain = { color: false };
  assert.equal(
    toolStartLine("read_file", { path: "notes.md" }, plain),
    "● read_file notes.md",
  );
  assert.equal(
    toolStartLine("run_command", { command: "git", args: ["status"] }, plain),
    "● run_command git status",
  );
  assert.equal(
    toolStartLine("run_command", { command: "echo", args: ["a b"] }, plain),
    "● run_command echo 'a b'",
  );
  assert.equal(
    toolStartLine(
      "http_request",
      { url: "https://example.com/x", method: "POST" },
      plain,
    ),
    "● http_request POST https://example.com/x",
  );
  assert.equal(
    toolStartLine("read_file", { path: "a\x1b[31mb\nc" }, plain),
    "● read_file ab c",
    "control characters stripped, one line",
  );
  assert.equal(
    toolStartLine("write_file", {
      path: "k.txt",
      content: "x",
      note: "sk-ant-api03-" + "A".repeat(40),
    }, plain),
    "● write_file k.txt",
  );
  assert.doesNotMatch(
    toolStartLine("custom", { token: "sk-ant-api03-" + "A".repeat(40) }, plain),
    /AAAAAAAAAA/,
    "a key shape is redacted",
  );
  assert.equal(
    toolResultLine(true, "Read 31 bytes (text/plain)", plain),
    "  ⎿ Read 31 bytes (text/plain)",
  );
  assert.equal(
    toolResultLine(false, "read_file failed: no such file or directory", plain),
    "  ✗ read_file failed: no such file or directory",
  );
});

/** A streamed token of model `m1`. */
const token = (seq: number, text: string) => tokenEvent(seq, text, "m1");

Deno.test("the terminal printer: status at turn start, tool lines when a call starts and ends, cleared by text", () => {
  const log: Array<["out" | "err", string]> = [];
  const b = createBufferedIo();
  const io = {
    ...b.io,
    stdout: { write: (t: string) => void log.push(["out", t]) },
    stderr: { write: (t: string) => void log.push(["err", t]) },
  };
  const ticker = manualTicker();
  let now = 0;
  const status = createStatusLine({
    write: (t) => io.stderr.write(t),
    now: () => now,
    every: ticker.every,
    color: false,
  });
  const p = createPlainPrinter(io, {
    color: false,
    quiet: false,
    verbose: false,
    primaryModel: "m1",
    terminal: { status, now: () => now, lines: TOOL_LINES },
  });
  p.print({ ...ENV, sequenceNumber: 1, type: "session:turn_started" });
  assert.match(log.at(-1)?.[1] ?? "", /Waiting for m1/);
  p.toolStarting?.("run_command", { command: "git", args: ["status"] });
  p.print({
    ...ENV,
    sequenceNumber: 2,
    type: "agent:tool_call",
    nodeId: "n",
    model: "m1",
    toolId: "run_command",
    toolInput: { command: "git", args: ["status"] },
    toolCallId: "c1",
  });
  p.print({
    ...ENV,
    sequenceNumber: 3,
    type: "agent:tool_result",
    nodeId: "n",
    toolId: "run_command",
    success: true,
    outputSummary: "git exited 0",
    toolCallId: "c1",
  });
  p.backoff?.(2_000);
  assert.match(log.at(-1)?.[1] ?? "", /Retrying m1 in 2\.0s/);
  now = 500;
  ticker.fire();
  assert.match(log.at(-1)?.[1] ?? "", /Retrying m1 in 1\.5s/, "a countdown");
  p.backoffDone?.();
  p.print(token(4, "Clean."));
  p.print({
    ...ENV,
    sequenceNumber: 5,
    type: "session:turn_completed",
    stopReason: "stop",
    tokensUsed: { input: 1, output: 1 },
  });
  const err = log.filter(([s]) => s === "err").map(([, t]) => t).join("");
  assert.ok(
    err.includes("● run_command git status\n"),
    "the call's line when it starts, once",
  );
  assert.equal(err.split("● run_command").length, 2, "not again at its event");
  assert.ok(err.includes("  ⎿ git exited 0\n"));
  const textAt = log.findIndex(([s, t]) => s === "out" && t === "Clean.");
  assert.equal(log[textAt - 1]?.[1], CLEAR, "the status goes before the text");
  assert.deepEqual(
    log.filter(([s]) => s === "out").map(([, t]) => t),
    ["Clean.", "\n"],
    "stdout holds only the model's text",
  );
  assert.equal(ticker.live(), 0, "no redraw left running after the turn");
});

async function chatOn(
  dir: string,
  terminal: { stderr: boolean; json?: boolean },
): Promise<{ code: number; stdout: string; stderr: string }> {
  await write(`${dir}/notes.md`, "The launch code is tangerine.\n");
  await writeScript(dir, {
    tools: ["read_file"],
    calls: [
      toolCall("read_file", { path: "notes.md" }),
      textCall("It says tangerine."),
    ],
  });
  const b = createBufferedIo({
    env: { RELAVIUM_HOME: `${dir}/home`, NO_COLOR: "1" },
    cwd: dir,
    stdin: lineStdin(["What does notes.md say?"]),
    stdinIsTerminal: true,
    stdoutIsTerminal: true,
    stderrIsTerminal: terminal.stderr,
    now: () => 0,
    every: manualTicker().every,
  });
  const code = await main(
    ["chat", ...scriptFlags(dir), ...(terminal.json ? ["--json"] : [])],
    b.io,
  );
  return { code, stdout: b.stdoutText(), stderr: b.stderrText() };
}

Deno.test("chat on a terminal: a status while waiting, the tool line and its result; stdout is the answer", async () => {
  await using dir = await tempDir();
  const r = await chatOn(dir.path, { stderr: true });
  assert.equal(r.code, 4, r.stderr);
  assert.equal(r.stdout, "It says tangerine.\n");
  assert.match(
    shown(r.stderr),
    /<clear>. Waiting for claude-haiku-4-5 · 0\.0s/,
  );
  assert.match(shown(r.stderr), /<clear>. Running read_file notes\.md · 0\.0s/);
  assert.match(r.stderr, /● read_file notes\.md\n/);
  assert.match(
    shown(r.stderr),
    /<clear> {2}⎿ Read 30 bytes \(text\/markdown\)\n/,
  );
  assert.doesNotMatch(r.stderr, /\[tool: read_file\]/);
});

Deno.test("chat with stderr not a terminal: tool lines, no status line", async () => {
  await using dir = await tempDir();
  const r = await chatOn(dir.path, { stderr: false });
  assert.equal(r.code, 4, r.stderr);
  assert.equal(r.stdout, "It says tangerine.\n");
  assert.ok(!r.stderr.includes("\r"), "nothing redrawn");
  assert.doesNotMatch(r.stderr, /Waiting for/);
  assert.match(r.stderr, /● read_file notes\.md\n {2}⎿ Read 30 bytes/);
});

Deno.test("chat --json on a terminal: only events on stdout, nothing of the status anywhere", async () => {
  await using dir = await tempDir();
  const r = await chatOn(dir.path, { stderr: true, json: true });
  assert.equal(r.code, 0, r.stderr);
  assert.equal(r.stderr, "");
  const events = parseEvents(r.stdout);
  assert.ok(events.some((e) => e.type === "agent:tool_result"));
  assert.ok(!r.stdout.includes("Waiting for") && !r.stdout.includes("●"));
});
