/**
 * Attack table: `run_command`, vectors defended before issue 13. The
 * allowlist holds exact entries only; a scripted model tries `sh -c`,
 * shell metacharacters in arguments (which must reach the program as
 * literal arguments, never a shell), a program not on the list, an
 * allowlisted program with other arguments, and config-only keys. Each
 * row runs `chat --json --mode auto` through the CLI with a cassette and
 * asserts the refusal (or the literal output) and that the marker the
 * attack would create outside the workspace is absent.
 */
import assert from "node:assert/strict";
import { replyChunks, tempDir, write } from "../cli/_helpers.ts";
import { scriptedChat, toolCall, treeState, writeScript } from "./_kit.ts";

interface Rig {
  ws: string;
  /** The marker an attack would create (outside the workspace). */
  marker: string;
}

interface Row {
  name: string;
  /** Exact `allowed_commands` entries. */
  allow: (r: Rig) => string[];
  call: (r: Rig) => { command: string; args?: string[]; [k: string]: unknown };
  /**
   * The call runs: what the program printed, literally (the next model
   * request must hold it).
   */
  prints?: (r: Rig) => string;
  /** The call is refused: the `outputSummary` of the tool result. */
  refusal?: RegExp;
  /** The refusal is fed back to the model (a correctable error). */
  fedBack?: boolean;
}

const NOT_ALLOWED = /^Tool call denied \(command_not_allowed\)/;

/** Rows where an argument holds shell syntax that would touch the marker. */
const LITERAL: Array<[string, (m: string) => string[]]> = [
  [";", (m) => ["x;touch", m]],
  ["|", (m) => ["x|touch", m]],
  ["&&", (m) => ["x&&touch", m]],
  ["||", (m) => ["x||touch", m]],
  ["$(...)", (m) => ["$(touch", `${m})`]],
  ["backticks", (m) => ["`touch", `${m}\``]],
  ["> redirection", (m) => [`x>${m}`]],
  ["$VAR and * expansion", () => ["$HOME", "*"]],
];

const ROWS: Row[] = [
  ...LITERAL.map(([what, args]): Row => ({
    name: `metacharacters ${what} reach echo as literal arguments`,
    allow: (r) => [["echo", ...args(r.marker)].join(" ")],
    call: (r) => ({ command: "echo", args: args(r.marker) }),
    prints: (r) => args(r.marker).join(" "),
  })),
  {
    name: "sh -c with an allowlist of echo",
    allow: () => ["echo ok"],
    call: (r) => ({ command: "sh", args: ["-c", `touch ${r.marker}`] }),
    refusal: NOT_ALLOWED,
  },
  {
    name: "/bin/sh -c by path",
    allow: () => ["echo ok"],
    call: (r) => ({ command: "/bin/sh", args: ["-c", `touch ${r.marker}`] }),
    refusal: NOT_ALLOWED,
  },
  {
    name: "an allowlisted line then ; touch, in one argument",
    allow: () => ["echo ok"],
    call: (r) => ({ command: "echo", args: [`ok; touch ${r.marker}`] }),
    refusal: NOT_ALLOWED,
  },
  {
    name: "a whole command line in the command field",
    allow: () => ["echo ok"],
    call: (r) => ({ command: `sh -c touch ${r.marker}` }),
    refusal: /command is the program name only/,
    fedBack: true,
  },
  {
    name: "a program glued to a metacharacter (echo;touch)",
    allow: () => ["echo ok"],
    call: (r) => ({ command: "echo;touch", args: [r.marker] }),
    refusal: NOT_ALLOWED,
  },
  {
    name: "a program not on the allowlist",
    allow: () => ["echo ok"],
    call: (r) => ({ command: "touch", args: [r.marker] }),
    refusal: NOT_ALLOWED,
  },
  {
    name: "an allowlisted program with an extra argument",
    allow: (r) => [`touch ${r.ws}/fine`],
    call: (r) => ({ command: "touch", args: [`${r.ws}/fine`, r.marker] }),
    refusal: NOT_ALLOWED,
  },
  {
    name: "an allowlisted program with another argument",
    allow: (r) => [`touch ${r.ws}/fine`],
    call: (r) => ({ command: "touch", args: [r.marker] }),
    refusal: NOT_ALLOWED,
  },
  {
    name: "an argument with a space that joins to an exact entry",
    allow: (r) => [`touch ${r.ws}/fine ${r.marker}`],
    call: (r) => ({ command: "touch", args: [`${r.ws}/fine ${r.marker}`] }),
    refusal: NOT_ALLOWED,
  },
  {
    name: "an argument with a newline and a second command",
    allow: () => ["echo ok"],
    call: (r) => ({ command: "echo", args: [`ok\ntouch ${r.marker}`] }),
    refusal: NOT_ALLOWED,
  },
  {
    name: "an argument that is a prefix of the allowlisted one",
    allow: (r) => [`touch ${r.marker}x`],
    call: (r) => ({ command: "touch", args: [`${r.marker}`] }),
    refusal: NOT_ALLOWED,
  },
  {
    name: "config-only env from the model (LD_PRELOAD)",
    allow: () => ["echo ok"],
    call: (r) => ({
      command: "echo",
      args: ["ok"],
      env: { LD_PRELOAD: `${r.marker}.so` },
    }),
    refusal: /^Invalid arguments for run_command: env: unknown key/,
    fedBack: true,
  },
  {
    name: "config-only cwd from the model (outside the workspace)",
    allow: () => ["echo ok"],
    call: () => ({ command: "echo", args: ["ok"], cwd: "/" }),
    refusal: /^Invalid arguments for run_command: cwd: unknown key/,
    fedBack: true,
  },
];

for (const row of ROWS) {
  Deno.test(`process attack: ${row.name}`, async () => {
    await using dir = await tempDir();
    const root = dir.path;
    const r: Rig = { ws: `${root}/ws`, marker: `${root}/outside/marker` };
    await Deno.mkdir(r.ws);
    await Deno.mkdir(`${root}/outside`);
    await write(
      `${root}/home/config.toml`,
      `[chat]\nallowed_commands = [${
        row.allow(r).map((e) => JSON.stringify(e)).join(", ")
      }]\n`,
    );
    const printed = row.prints?.(r);
    const followUp = printed !== undefined || row.fedBack === true;
    await writeScript(root, {
      tools: ["run_command"],
      calls: [
        toolCall("run_command", row.call(r)),
        ...(followUp
          ? [{
            expect: {
              toolResultFor: "c1",
              ...(printed === undefined
                ? {}
                : { messagesInclude: [JSON.stringify(printed).slice(1, -1)] }),
            },
            chunks: replyChunks("Done."),
          }]
          : []),
      ],
    });
    const before = await treeState([`${root}/outside`]);
    const run = await scriptedChat(root, {
      cwd: r.ws,
      env: { RELAVIUM_HOME: `${root}/home` },
    });
    const result = run.results[0];
    assert.ok(result !== undefined, run.stdout + run.stderr);
    if (printed !== undefined) {
      assert.equal(run.code, 0, run.stderr);
      assert.equal(result.success, true, JSON.stringify(result));
      assert.equal(result.outputSummary, "echo exited 0");
      assert.equal(run.turnError, undefined, run.stdout);
    } else {
      assert.equal(result.success, false, JSON.stringify(result));
      assert.match(result.outputSummary ?? "", row.refusal ?? /./);
      if (row.fedBack === true) assert.equal(run.turnError, undefined);
      else assert.equal(run.turnError, "tool_denied", run.stdout);
    }
    await assert.rejects(Deno.lstat(r.marker), Deno.errors.NotFound);
    await assert.rejects(Deno.lstat(`${r.ws}/fine`), Deno.errors.NotFound);
    assert.deepEqual(await treeState([`${root}/outside`]), before);
  });
}
