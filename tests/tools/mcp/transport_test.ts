import assert from "node:assert/strict";
import { DenoStdioTransport } from "../../../tools/mcp/stdio_transport.ts";

const posix = Deno.build.os !== "windows";
const env = { PATH: Deno.env.get("PATH") ?? "/usr/bin:/bin" };

/**
 * Whether a process is alive (not gone, not a zombie), from `ps`: the suite
 * runs without `--allow-all`, and Deno reads `/proc` only with it.
 */
async function alive(pid: number): Promise<boolean> {
  const out = await new Deno.Command("ps", {
    args: ["-o", "stat=", "-p", String(pid)],
    stdout: "piped",
    stderr: "null",
  }).output();
  const stat = new TextDecoder().decode(out.stdout).trim();
  return stat !== "" && !stat.startsWith("Z");
}

/** Polls `test` until it holds (at most ~5 s). */
async function eventually(test: () => Promise<boolean>): Promise<boolean> {
  for (let i = 0; i < 100; i++) {
    if (await test()) return true;
    await new Promise((r) => setTimeout(r, 50));
  }
  return false;
}

Deno.test({
  name: "DenoStdioTransport.close() kills the server's whole process group",
  ignore: !posix,
  fn: async () => {
    const dir = await Deno.makeTempDir();
    const t = new DenoStdioTransport({
      command: "sh",
      args: ["-c", "sleep 60 & echo $! >&2; wait"],
      env,
      cwd: dir,
      posix,
    });
    await t.start();
    assert.ok(
      await eventually(() => Promise.resolve(/^\d+\n$/.test(t.stderrTail))),
      t.stderrTail,
    );
    const grandchild = Number(t.stderrTail.trim());
    const child = t.pid ?? 0;
    assert.ok(await eventually(() => alive(grandchild)), `${grandchild}`);
    let closed = 0;
    t.onclose = () => void closed++;
    await t.close();
    await t.close();
    assert.equal(closed, 1);
    assert.ok(await eventually(async () => !(await alive(grandchild))));
    assert.ok(await eventually(async () => !(await alive(child))));
    await Deno.remove(dir, { recursive: true });
  },
});

Deno.test("DenoStdioTransport ends a connection whose line passes the cap", async () => {
  const dir = await Deno.makeTempDir();
  const t = new DenoStdioTransport({
    command: "sh",
    args: ["-c", "head -c 5000 /dev/zero | tr '\\0' x; sleep 60"],
    env,
    cwd: dir,
    posix,
    maxLine: 1000,
  });
  const errors: string[] = [];
  const closed = new Promise<void>((resolve) => {
    t.onclose = resolve;
  });
  t.onerror = (e) => void errors.push(e.message);
  await t.start();
  await closed;
  assert.deepEqual(errors, [
    "MCP server sent a line longer than 1000 characters",
  ]);
  await Deno.remove(dir, { recursive: true });
});
