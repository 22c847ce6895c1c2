/**
 * The exit code of a chat: a script (piped, `--json`, CI) exits 0 when
 * every turn succeeded and 1 when any failed, however its input ended; an
 * interactive chat the person ends exits 4.
 */
import assert from "node:assert/strict";
import { createBufferedIo } from "../../../cli/io/io.ts";
import { main } from "../../../cli/main.ts";
import { lineStdin, runCli, tempDir, write } from "../_helpers.ts";
import { turnsCassette } from "./_turns_cassette.ts";

/** Two calls: the first answers, the second fails with `auth`. */
function okThenFail(): string {
  return turnsCassette(["Fine.", null]);
}

const ROWS: Array<{
  name: string;
  cassette: () => string;
  stdin: string;
  json: boolean;
  code: number;
}> = [
  {
    name: "piped, every turn succeeded, end of input",
    cassette: () => turnsCassette(["One.", "Two."]),
    stdin: "a\nb\n",
    json: false,
    code: 0,
  },
  {
    name: "--json, every turn succeeded, end of input",
    cassette: () => turnsCassette(["One."]),
    stdin: "a\n",
    json: true,
    code: 0,
  },
  {
    name: "piped, every turn succeeded, /exit",
    cassette: () => turnsCassette(["One."]),
    stdin: "a\n/exit\nnever sent\n",
    json: false,
    code: 0,
  },
  {
    name: "piped, the second turn failed",
    cassette: okThenFail,
    stdin: "a\nb\n",
    json: false,
    code: 1,
  },
  {
    name: "--json, the second turn failed, /cancel",
    cassette: okThenFail,
    stdin: "a\nb\n/cancel\n",
    json: true,
    code: 1,
  },
  {
    name: "piped, no turn at all",
    cassette: () => turnsCassette([]),
    stdin: "",
    json: false,
    code: 0,
  },
];

Deno.test("chat exit code: a script's chat tells success from failure", async (t) => {
  for (const row of ROWS) {
    await t.step(row.name, async () => {
      await using dir = await tempDir();
      await write(`${dir.path}/c.json`, row.cassette());
      const r = await runCli(
        ["chat", "--fixture", "c.json", ...(row.json ? ["--json"] : [])],
        {
          env: { RELAVIUM_HOME: `${dir.path}/home`, NO_COLOR: "1" },
          cwd: dir.path,
          stdin: row.stdin,
        },
      );
      assert.equal(r.code, row.code, r.stderr);
    });
  }
});

Deno.test("chat exit code: an interactive chat ended by the person exits 4, even after a failed turn", async () => {
  await using dir = await tempDir();
  await write(`${dir.path}/c.json`, okThenFail());
  const b = createBufferedIo({
    env: { RELAVIUM_HOME: `${dir.path}/home`, NO_COLOR: "1" },
    cwd: dir.path,
    stdin: lineStdin(["a", "b"]),
    stdinIsTerminal: true,
    stdoutIsTerminal: true,
  });
  assert.equal(await main(["chat", "--fixture", "c.json"], b.io), 4);
  assert.match(b.stderrText(), /\[turn failed: provider_auth\]/);
});

Deno.test("chat: /cancel says the chat was cancelled and the session kept", async () => {
  await using dir = await tempDir();
  await write(`${dir.path}/c.json`, turnsCassette(["One."]));
  const r = await runCli(["chat", "--fixture", "c.json"], {
    env: { RELAVIUM_HOME: `${dir.path}/home`, NO_COLOR: "1" },
    cwd: dir.path,
    stdin: "a\n/cancel\n",
  });
  assert.equal(r.code, 0, r.stderr);
  assert.match(
    r.stderr,
    /Chat cancelled; the session is kept\nResume with: relavium chat-resume /,
  );
});
