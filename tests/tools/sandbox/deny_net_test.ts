/**
 * The Deno behaviour `SSRF_DENY_NET` relies on:
 * Deno accepts the whole list in `--deny-net` and checks it against the
 * address `fetch` actually connects to, so a name that resolves to a
 * blocked address (here `localhost`) is refused at connect time even
 * under an unscoped `--allow-net`.
 */
import assert from "node:assert/strict";
import { SSRF_DENY_NET } from "../../../tools/sandbox/ssrf.ts";
import { tempDir } from "../_helpers.ts";
import { runProbe } from "../fixtures/run_probe.ts";

function probe(script: string, flags: string[]): Promise<string> {
  return runProbe(flags, [], script);
}

Deno.test("--deny-net=SSRF_DENY_NET refuses a name resolving to loopback at connect time", async () => {
  await using dir = await tempDir();
  const server = Deno.serve(
    { hostname: "127.0.0.1", port: 0, onListen() {} },
    () => new Response("reached"),
  );
  try {
    const script = `${dir.path}/probe.ts`;
    await Deno.writeTextFile(
      script,
      `try {
  const r = await fetch("http://localhost:${server.addr.port}/");
  console.log(await r.text());
} catch {
  console.log("blocked");
}
`,
    );
    assert.equal(await probe(script, ["--allow-net"]), "reached");
    assert.equal(
      await probe(script, [
        "--allow-net",
        `--deny-net=${SSRF_DENY_NET.join(",")}`,
      ]),
      "blocked",
    );
  } finally {
    await server.shutdown();
  }
});
