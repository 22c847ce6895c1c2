/**
 * Attack table F18: an untrusted project file raises a cap, a timer or a
 * cost setting that the narrowing rule did not know (the provider
 * timeouts, the response bound, prompt caching, reasoning effort,
 * compaction). Each row runs `config show --json` in-process as a freshly
 * cloned, untrusted repository: the raised value is ignored (the setting
 * keeps the value and layer below it) and named in the notice; the same key
 * lowered still applies, silently. The README's list of widening keys
 * names every key the rule judges.
 */
import assert from "node:assert/strict";
import { WIDENING_CHAT_KEYS } from "../../cli/config/narrow.ts";
import { runCli, tempDir, write } from "../cli/_helpers.ts";

const GLOBAL = '[chat]\nreasoning_effort = "low"\n';

interface Row {
  /** The `[chat]` or `[defaults]` key, as `config show` names it. */
  key: string;
  /** The project file: raises the key. */
  raised: string;
  /** What it resolves to with the raise ignored, and from where. */
  kept: [unknown, string];
  /** The project file: lowers the key (applies, no notice). */
  lowered: string;
  loweredValue: unknown;
  /** A workspace file under the project (untrusted too). */
  workspace?: string;
}

const ROWS: Row[] = [
  {
    key: "chat.first_byte_timeout_ms",
    raised: "[chat]\nfirst_byte_timeout_ms = 2000000000\n",
    kept: [60_000, "built-in"],
    lowered: "[chat]\nfirst_byte_timeout_ms = 1000\n",
    loweredValue: 1000,
  },
  {
    key: "chat.idle_timeout_ms",
    raised: "[chat]\nidle_timeout_ms = 2000000000\n",
    kept: [300_000, "built-in"],
    lowered: "[chat]\nidle_timeout_ms = 1000\n",
    loweredValue: 1000,
  },
  {
    key: "chat.max_response_bytes",
    raised: "[chat]\nmax_response_bytes = 999999999999\n",
    kept: [64 * 1024 * 1024, "built-in"],
    lowered: "[chat]\nmax_response_bytes = 1024\n",
    loweredValue: 1024,
  },
  {
    key: "chat.prompt_caching",
    raised: '[chat]\nprompt_caching = "1h"\n',
    kept: [true, "built-in"],
    lowered: "[chat]\nprompt_caching = false\n",
    loweredValue: false,
  },
  {
    key: "chat.reasoning_effort",
    raised: '[chat]\nreasoning_effort = "max"\n',
    kept: ["low", "global"],
    lowered: '[chat]\nreasoning_effort = "off"\n',
    loweredValue: "off",
  },
  {
    key: "chat.auto_compact",
    raised: "[chat]\nauto_compact = false\n",
    kept: [true, "built-in"],
    lowered: "[chat]\nauto_compact = true\n",
    loweredValue: true,
  },
  {
    key: "chat.compact_threshold",
    raised: "[chat]\ncompact_threshold = 1\n",
    kept: [0.8, "built-in"],
    lowered: "[chat]\ncompact_threshold = 0.5\n",
    loweredValue: 0.5,
  },
  {
    key: "defaults.max_tokens_estimate",
    workspace: "[defaults]\nmax_tokens_estimate = 4000\n",
    raised: "[defaults]\nmax_tokens_estimate = 1\n",
    kept: [4000, "workspace"],
    lowered: "[defaults]\nmax_tokens_estimate = 8000\n",
    loweredValue: 8000,
  },
];

/** `config show --json` over `files` (untrusted); asserts it succeeded. */
async function showConfig(
  root: string,
  files: { project: string; workspace?: string | undefined },
): Promise<{ code: number; stdout: string; stderr: string }> {
  await write(`${root}/home/config.toml`, GLOBAL);
  await write(`${root}/repo/.relavium/project.toml`, files.project);
  if (files.workspace !== undefined) {
    await write(`${root}/repo/.relavium/workspace.toml`, files.workspace);
  }
  const r = await runCli(["config", "show", "--json"], {
    env: { RELAVIUM_HOME: `${root}/home`, NO_COLOR: "1" },
    cwd: `${root}/repo`,
    trust: false,
  });
  assert.equal(r.code, 0, r.stderr);
  return r;
}

function setting(stdout: string, key: string): [unknown, string] | undefined {
  const rows: Array<{ key: string; value: unknown; source: string }> =
    JSON.parse(stdout).settings;
  const row = rows.find((r) => r.key === key);
  return row === undefined ? undefined : [row.value, row.source];
}

function notices(stderr: string): string[] {
  return stderr.split("\n").filter((l) => l.includes("is not trusted"));
}

Deno.test("F18: an untrusted project file may not raise a cap, a timer or a cost setting", async (t) => {
  for (const row of ROWS) {
    await t.step(`${row.key} raised: ignored, named`, async () => {
      await using dir = await tempDir();
      const r = await showConfig(dir.path, {
        project: row.raised,
        workspace: row.workspace,
      });
      assert.deepEqual(setting(r.stdout, row.key), row.kept);
      const n = notices(r.stderr);
      assert.equal(n.length, 1, r.stderr);
      assert.ok(n[0]?.includes(`/.relavium/project.toml`), n[0]);
      assert.ok(n[0]?.includes(row.key), n[0]);
      const untrusted: Array<{ path: string; ignored: string[] }> =
        JSON.parse(r.stdout).untrusted;
      const project = untrusted.find((u) => u.path.endsWith("project.toml"));
      assert.deepEqual(project?.ignored, [row.key]);
    });
    await t.step(`${row.key} lowered: applies, silently`, async () => {
      await using dir = await tempDir();
      const r = await showConfig(dir.path, {
        project: row.lowered,
        workspace: row.workspace,
      });
      assert.deepEqual(setting(r.stdout, row.key), [
        row.loweredValue,
        "project",
      ]);
      assert.deepEqual(notices(r.stderr), []);
    });
  }
});

Deno.test("F18: the README's list of widening keys names every [chat] key the rule judges", async () => {
  const readme = await Deno.readTextFile(
    new URL("../../README.md", import.meta.url),
  );
  const start = readme.indexOf("### Trusting a project file");
  assert.ok(start >= 0);
  const section = readme.slice(start, readme.indexOf("\n`[chat]`", start));
  const missing = WIDENING_CHAT_KEYS.filter((k) =>
    !new RegExp(`\`${k}[\` ]`).test(section)
  );
  assert.deepEqual(missing, []);
  assert.ok(section.includes("[defaults].max_tokens_estimate"));
});
