/**
 * `deno task bundle`: `deno bundle` of cli.ts to one JS file runs a
 * cassette turn (`agent run --fixture`) in a real process. Ignored, with
 * the reason in its name, where this Deno has no `deno bundle`.
 */
import assert from "node:assert/strict";
import { fileURLToPath } from "node:url";
import {
  parseEvents,
  signature,
  tempDir,
  textCassette,
  write,
} from "./_helpers.ts";

const ROOT = fileURLToPath(new URL("../../", import.meta.url));

async function bundleAvailable(): Promise<boolean> {
  try {
    const out = await new Deno.Command(Deno.execPath(), {
      args: ["bundle", "--help"],
      stdout: "null",
      stderr: "null",
    }).output();
    return out.success;
  } catch {
    return false;
  }
}

const AVAILABLE = await bundleAvailable();

Deno.test("deno task bundle is `deno bundle` of cli.ts into dist/", async () => {
  const config = JSON.parse(await Deno.readTextFile(`${ROOT}deno.json`));
  assert.equal(
    config.tasks.bundle,
    "deno bundle --platform deno --output dist/relavium.js cli.ts",
  );
});

Deno.test({
  name: AVAILABLE
    ? "the bundle runs a cassette turn (agent run --fixture)"
    : "the bundle runs a cassette turn: IGNORED, `deno bundle` is unavailable in this Deno",
  ignore: !AVAILABLE,
  async fn() {
    await using dir = await tempDir();
    const bundle = `${dir.path}/relavium.js`;
    const built = await new Deno.Command(Deno.execPath(), {
      args: [
        "bundle",
        "--quiet",
        "--platform",
        "deno",
        "--output",
        bundle,
        "cli.ts",
      ],
      cwd: ROOT,
      stdout: "piped",
      stderr: "piped",
    }).output();
    assert.equal(built.code, 0, new TextDecoder().decode(built.stderr));
    await write(
      `${dir.path}/mini.agent.yaml`,
      "id: mini\nmodel: gpt-5.4-mini\nprovider: openai\nsystem_prompt: Be terse.\n",
    );
    await write(`${dir.path}/c.json`, textCassette("openai", ["Bundled."]));
    const child = new Deno.Command(Deno.execPath(), {
      args: [
        "run",
        "--no-prompt",
        "--allow-read",
        "--allow-env",
        bundle,
        "agent",
        "run",
        "mini.agent.yaml",
        "--fixture",
        "c.json",
        "--json",
      ],
      cwd: dir.path,
      clearEnv: true,
      env: { RELAVIUM_HOME: `${dir.path}/home` },
      stdin: "piped",
      stdout: "piped",
      stderr: "piped",
    }).spawn();
    const writer = child.stdin.getWriter();
    await writer.write(new TextEncoder().encode("hello\n"));
    await writer.close();
    const out = await child.output();
    const stderr = new TextDecoder().decode(out.stderr);
    assert.equal(out.code, 0, stderr);
    assert.equal(stderr, "");
    const events = parseEvents(new TextDecoder().decode(out.stdout));
    assert.deepEqual(signature(events), [
      "session:started",
      "session:turn_started",
      "agent:token",
      "cost:updated",
      "session:turn_completed",
      "session:cancelled",
    ]);
  },
});
