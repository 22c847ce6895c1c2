/**
 * The README's `curl` block for `serve`, run as written by bash against
 * a real server and a loopback provider.
 */
import assert from "node:assert/strict";
import { fileURLToPath } from "node:url";
import { fakeProvider, prepareFolder, startServe } from "./_kit.ts";

const README = fileURLToPath(new URL("../../README.md", import.meta.url));

function curlBlock(text: string): string {
  const start = text.indexOf("<!-- serve-curl -->");
  const open = text.indexOf("```sh\n", start);
  const close = text.indexOf("\n```", open + 6);
  assert.ok(start !== -1 && open !== -1 && close !== -1, "README block");
  return text.slice(open + 6, close + 1);
}

Deno.test("the README's serve curl examples run against a real server", async () => {
  const script = curlBlock(await Deno.readTextFile(README));
  await using provider = fakeProvider();
  const dir = await Deno.makeTempDir({ prefix: "serve-curl-" });
  const folder = await prepareFolder(dir, provider.url);
  await using server = await startServe(folder);
  provider.push({ tokens: ["Hello ", "there"] });
  const out = await new Deno.Command("bash", {
    args: ["-euo", "pipefail", "-c", script],
    env: { URL: server.url, TOKEN: server.token },
    stdin: "null",
  }).output();
  const stdout = new TextDecoder().decode(out.stdout);
  assert.equal(out.code, 0, new TextDecoder().decode(out.stderr));
  assert.match(stdout, /"ok":true/);
  assert.match(stdout, /event: agent:token\ndata: .*"token":"there"/);
  assert.match(stdout, /event: server:idle/);
  assert.match(stdout, /"assistant":"Hello there"/);
  await Deno.remove(dir, { recursive: true });
});
