/**
 * Friction table (config, trust and doctor, as a person at a terminal or a
 * script meets them): a provider only an untrusted project file declares
 * is named with that file and the `trust` command (after a declined trust
 * question too), not as undeclared; usage errors, help and hints name the
 * command the person actually ran, not `relavium` or
 * `deno run <permissions> …`; `doctor` fails only over a provider in use.
 */
import assert from "node:assert/strict";
import { fileURLToPath } from "node:url";
import { createBufferedIo } from "../../cli/io/io.ts";
import { invocationOf, type PermissionKind } from "../../cli/invocation.ts";
import { main } from "../../cli/main.ts";
import {
  lineStdin,
  runCli,
  tempDir,
  textCassette,
  write,
} from "../cli/_helpers.ts";

const ROOT = fileURLToPath(new URL("../../", import.meta.url));
const RAN = "deno run -A /opt/rel/cli.ts";

const FAKE_PROVIDER = `[[providers]]
id = "fake"
kind = "openai-compatible"
base_url = "http://127.0.0.1:9/v1"
allow_local = true
`;

async function untrustedProviderRepo(root: string): Promise<string> {
  const repo = `${root}/repo`;
  await write(`${repo}/.relavium/project.toml`, FAKE_PROVIDER);
  await write(
    `${repo}/helper.agent.yaml`,
    "id: helper\nmodel: m1\nprovider: fake\nsystem_prompt: Help.\n",
  );
  await write(`${repo}/c.json`, textCassette("fake", ["unused"]));
  return repo;
}

async function inProcess(
  argv: string[],
  options: { cwd: string; env: Record<string, string>; lines?: string[] },
): Promise<{ code: number; stdout: string; stderr: string }> {
  const b = createBufferedIo({
    env: { NO_COLOR: "1", ...options.env },
    cwd: options.cwd,
    stdin: lineStdin(options.lines ?? []),
    stdinIsTerminal: options.lines !== undefined,
    stdoutIsTerminal: options.lines !== undefined,
  });
  const code = await main(argv, { ...b.io, invocation: () => RAN });
  return { code, stdout: b.stdoutText(), stderr: b.stderrText() };
}

Deno.test("friction: a provider an untrusted project file declares is named with the file and trust", async (t) => {
  const rows: Array<{ name: string; argv: string[]; lines?: string[] }> = [
    {
      name: "agent run with an agent on that provider",
      argv: ["agent", "run", "helper.agent.yaml", "hi", "--fixture", "c.json"],
    },
    {
      name: "chat after declining the trust question",
      argv: ["chat", "--agent", "helper.agent.yaml", "--fixture", "c.json"],
      lines: ["n", "/exit"],
    },
    {
      name: "chat --model with --provider of that id",
      argv: ["chat", "--model", "m1", "--provider", "fake"],
    },
  ];
  for (const row of rows) {
    await t.step(row.name, async () => {
      await using dir = await tempDir();
      const repo = await untrustedProviderRepo(dir.path);
      const r = await inProcess(row.argv, {
        cwd: repo,
        env: { RELAVIUM_HOME: `${dir.path}/home` },
        ...(row.lines === undefined ? {} : { lines: row.lines }),
      });
      assert.equal(r.code, 2, r.stderr);
      assert.doesNotMatch(r.stderr, /declare it in \[\[providers\]\]/);
      assert.ok(
        r.stderr.includes(
          `Provider "fake" is declared in ${repo}/.relavium/project.toml, which you have not trusted`,
        ),
        r.stderr,
      );
      assert.ok(r.stderr.includes(`run: ${RAN} trust)`), r.stderr);
    });
  }
});

/**
 * Runs `cli.ts frob` from the checkout with `deno <flags>`: exit 2, and
 * the usage hint names the command as `ran`.
 */
async function unknownCommandFromCheckout(
  flags: string[],
  ran: string,
): Promise<void> {
  await using dir = await tempDir();
  const r = await child(flags, "cli.ts", ["frob"], {
    cwd: ROOT,
    env: { RELAVIUM_HOME: `${dir.path}/home` },
  });
  assert.equal(r.code, 2, r.stderr);
  assert.ok(r.stderr.includes(`Run '${ran} --help' for usage`), r.stderr);
}

Deno.test("friction: usage errors and help name the command as it was run", async (t) => {
  await t.step("an unknown command (in-process)", async () => {
    await using dir = await tempDir();
    const r = await inProcess(["frob"], { cwd: dir.path, env: {} });
    assert.equal(r.code, 2);
    assert.match(r.stderr, new RegExp(`Run '${RAN} --help' for usage\\n$`));
  });
  await t.step("a command's bad flag, then its help page", async () => {
    await using dir = await tempDir();
    const r = await inProcess(["chat-list", "--nope"], {
      cwd: dir.path,
      env: {},
    });
    assert.equal(r.code, 2);
    assert.ok(r.stderr.includes(`Run '${RAN} chat-list --help'`), r.stderr);
    const help = await inProcess(["chat", "--help"], {
      cwd: dir.path,
      env: {},
    });
    assert.match(help.stdout, new RegExp(`^Usage: ${RAN} chat \\[`));
  });
  await t.step(
    "invocationOf() keeps the words before the CLI's arguments",
    () => {
      const facts = {
        cmdline: () => ["deno", "run", "-A", "cli.ts", "chat", "--json"],
        args: ["chat", "--json"],
        execPath: "/usr/bin/deno",
        mainModule: "file:///src/rel/cli.ts",
        cwd: "/src/rel",
        granted: (_kind: PermissionKind, _value?: string): boolean => true,
      };
      assert.equal(invocationOf(facts), "deno run -A cli.ts");
      assert.equal(
        invocationOf({
          ...facts,
          cmdline: () => ["./relavium", "chat", "--json"],
        }),
        "./relavium",
      );
      assert.equal(
        invocationOf({
          ...facts,
          cmdline:
            () => ["deno", "run", "-A", "my dir/cli.ts", "chat", "--json"],
        }),
        "deno run -A 'my dir/cli.ts'",
      );
      // Without the command line (narrow permissions): what the queries
      // reveal, the script relative to the working directory.
      assert.equal(
        invocationOf({
          ...facts,
          cmdline: () => undefined,
          granted: (kind, value) =>
            kind === "read" || kind === "env" ||
            (kind === "run" && value === "git"),
        }),
        "deno run --allow-read --allow-env --allow-run=git cli.ts",
      );
    },
  );
});

/** Runs `deno <flags> <script> <args>` as a real child (stdin given). */
async function child(
  flags: string[],
  script: string,
  args: string[],
  options: { cwd: string; env: Record<string, string>; stdin?: string },
): Promise<{ code: number; stderr: string }> {
  const proc = new Deno.Command(Deno.execPath(), {
    args: [...flags, script, ...args],
    cwd: options.cwd,
    clearEnv: true,
    // PATH: a scoped --allow-run=git is resolved through it.
    env: { PATH: Deno.env.get("PATH") ?? "/usr/bin:/bin", ...options.env },
    stdin: "piped",
    stdout: "piped",
    stderr: "piped",
  }).spawn();
  const writer = proc.stdin.getWriter();
  await writer.write(new TextEncoder().encode(options.stdin ?? ""));
  await writer.close();
  const out = await proc.output();
  return { code: out.code, stderr: new TextDecoder().decode(out.stderr) };
}

/** Flags that every permission query reveals (nothing scoped but run, sys). */
const NARROW = [
  "--allow-read",
  "--allow-write",
  "--allow-env",
  "--allow-run=git",
  "--allow-sys=hostname",
];

Deno.test("friction: a real process's hints and usage errors name what was run", async (t) => {
  await t.step("the resume hint under narrow permissions", async () => {
    await using dir = await tempDir();
    await write(`${dir.path}/c.json`, textCassette("anthropic", ["Hi."]));
    const r = await child(
      ["run", "--no-prompt", "--quiet", ...NARROW],
      `${ROOT}cli.ts`,
      ["chat", "--fixture", `${dir.path}/c.json`],
      {
        cwd: dir.path,
        env: { RELAVIUM_HOME: `${dir.path}/home`, NO_COLOR: "1" },
        stdin: "hello\n",
      },
    );
    assert.equal(r.code, 0, r.stderr);
    assert.doesNotMatch(r.stderr, /<permissions>/);
    assert.ok(
      r.stderr.includes(
        `Resume with: deno run ${NARROW.join(" ")} ${ROOT}cli.ts chat-resume `,
      ),
      r.stderr,
    );
  });
  await t.step(
    "an unknown command, run from the checkout as cli.ts",
    async () => {
      await unknownCommandFromCheckout(
        ["run", "--quiet", ...NARROW],
        `deno run ${NARROW.join(" ")} cli.ts`,
      );
    },
  );
  await t.step("with -A: the exact words of the command line", async () => {
    await unknownCommandFromCheckout(
      ["run", "--quiet", "-A"],
      `${Deno.execPath()} run --quiet -A cli.ts`,
    );
  });
});

Deno.test("friction: doctor fails only over a provider in use", async (t) => {
  const rows: Array<{
    name: string;
    env: Record<string, string>;
    config?: string;
    code: number;
    says: RegExp;
  }> = [
    {
      name: "the built-in default's key missing, another provider's present",
      env: { OPENAI_API_KEY: "k" },
      code: 0,
      says: /^note: No API key for anthropic \(the default provider\)/m,
    },
    {
      name: "a default model the config chose, its key missing",
      env: { OPENAI_API_KEY: "k" },
      config: '[chat]\ndefault_model = "claude-haiku-4-5"\n',
      code: 1,
      says: /^problem: No API key for anthropic \(the default provider\)/m,
    },
    {
      name: "no key at all",
      env: {},
      code: 1,
      says: /^problem: No API key for anthropic \(the default provider\)/m,
    },
  ];
  for (const row of rows) {
    await t.step(row.name, async () => {
      await using dir = await tempDir();
      if (row.config !== undefined) {
        await write(`${dir.path}/home/config.toml`, row.config);
      }
      const r = await runCli(["doctor"], {
        cwd: dir.path,
        env: { RELAVIUM_HOME: `${dir.path}/home`, NO_COLOR: "1", ...row.env },
      });
      assert.equal(r.code, row.code, r.stderr);
      assert.match(r.stderr, row.says);
    });
  }
});
