import assert from "node:assert/strict";
import { fileURLToPath } from "node:url";
import type { HelpTopic } from "../../cli/args.ts";
import { runCli } from "./_helpers.ts";
import { createBufferedIo } from "../../cli/io/io.ts";
import { main } from "../../cli/main.ts";

const GOLDEN = fileURLToPath(new URL("./golden/", import.meta.url));

const TOPICS: Array<[HelpTopic, string[]]> = [
  ["main", ["--help"]],
  ["chat", ["chat", "-h"]],
  ["chat-resume", ["chat-resume", "--help"]],
  ["chat-list", ["chat-list", "--help"]],
  ["chat-show", ["chat-show", "--help"]],
  ["chat-delete", ["chat-delete", "--help"]],
  ["chat-release", ["chat-release", "--help"]],
  ["chat-export", ["chat-export", "s1", "-h"]],
  ["agent-run", ["agent", "run", "--help"]],
  ["config", ["config", "--help"]],
  ["doctor", ["doctor", "-h"]],
  ["trust", ["trust", "--help"]],
  ["mcp", ["mcp", "list", "--help"]],
  ["serve", ["serve", "--help"]],
  ["store", ["store", "migrate-to-postgres", "--help"]],
];

Deno.test("main() prints each help page as its golden file", async (t) => {
  for (const [topic, argv] of TOPICS) {
    await t.step(topic, async () => {
      const golden = await Deno.readTextFile(`${GOLDEN}help_${topic}.txt`);
      const r = await runCli([...argv, "--json"]);
      assert.equal(r.code, 0);
      assert.equal(r.stdout, golden);
      assert.equal(r.stderr, "");
    });
  }
});

Deno.test("main() prints the bare version on stdout, even with --json", async () => {
  for (const argv of [["-V"], ["--version", "--json"], ["chat", "--version"]]) {
    const r = await runCli(argv);
    assert.equal(r.code, 0);
    assert.equal(r.stdout, "0.2.0\n");
    assert.equal(r.stderr, "");
  }
});

Deno.test("main() reports usage errors: plain with a hint, JSON as one line", async () => {
  const plain = await runCli(["chat", "--bogus"], { env: { NO_COLOR: "1" } });
  assert.equal(plain.code, 2);
  assert.equal(plain.stdout, "");
  assert.equal(
    plain.stderr,
    "error: Unknown option: --bogus\nRun 'relavium chat --help' for usage\n",
  );
  const json = await runCli(["--json", "frobnicate"]);
  assert.equal(json.code, 2);
  assert.equal(json.stdout, "");
  assert.deepEqual(JSON.parse(json.stderr), {
    type: "error",
    code: "usage",
    message: "Unknown command: frobnicate",
  });
  assert.equal(json.stderr.split("\n").length, 2);
});

Deno.test("main() colours the error prefix only on a terminal, unless told otherwise", async () => {
  const tty = createBufferedIo({ stderrIsTerminal: true });
  await main(["bogus"], tty.io);
  assert.ok(tty.stderrText().startsWith("\x1b[31merror:\x1b[39m "));
  const piped = await runCli(["bogus"]);
  assert.match(piped.stderr, /^error: /, "a redirected stderr gets no colour");
  const forcedOn = await runCli(["bogus"], { env: { FORCE_COLOR: "1" } });
  assert.ok(forcedOn.stderr.startsWith("\x1b[31m"), "FORCE_COLOR turns it on");
  const flag = await runCli(["bogus", "--no-color"]);
  assert.match(flag.stderr, /^error: /);
  const forced = await runCli(["bogus", "--color"], { env: { NO_COLOR: "1" } });
  assert.ok(forced.stderr.startsWith("\x1b[31m"));
  const force0 = await runCli(["bogus"], { env: { FORCE_COLOR: "0" } });
  assert.match(force0.stderr, /^error: /);
});
