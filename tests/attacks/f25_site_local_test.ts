/**
 * Attack table F25: IPv6 site-local addresses (`fec0::/10`, deprecated but
 * still routed on some networks) must be blocked like the other private
 * ranges: a scripted model's `http_request` to one (with the address on
 * `allowed_domains`, so only the SSRF check can refuse it) is denied
 * `ssrf_blocked`, a DNS answer in the range is refused, and a provider
 * base URL in the range needs `allow_local`. The range's neighbours stay
 * as they were (`fe80::/10` blocked, a public `2001:db8::` form allowed).
 */
import assert from "node:assert/strict";
import { isBlockedAddress } from "../../tools/sandbox/ssrf.ts";
import { runCli, tempDir, write } from "../cli/_helpers.ts";
import { refusedRequest } from "./_kit.ts";

const SITE_LOCAL: Array<[string, string]> = [
  ["the first address fec0::1", "fec0::1"],
  ["a longer form fec0:0:0:1::2", "fec0:0:0:1::2"],
  ["the middle fed0::1", "fed0::1"],
  ["the last block feff:ffff::1", "feff:ffff::1"],
  ["upper case FEC0::1", "FEC0::1"],
];

Deno.test("F25: isBlockedAddress() blocks fec0::/10 and keeps its neighbours", async (t) => {
  for (const [what, address] of SITE_LOCAL) {
    await t.step(`${what}: blocked`, () => {
      assert.equal(isBlockedAddress(address), true);
    });
  }
  await t.step("fe80::1 (link-local, below the range): blocked", () => {
    assert.equal(isBlockedAddress("fe80::1"), true);
  });
  await t.step("2606:4700::1 (public): allowed", () => {
    assert.equal(isBlockedAddress("2606:4700::1"), false);
  });
});

Deno.test("F25: http_request to a site-local address is refused ssrf_blocked", async (t) => {
  for (const [what, address] of SITE_LOCAL.slice(0, 3)) {
    await t.step(what, async () => {
      await using dir = await tempDir();
      const { result } = await refusedRequest(
        dir.path,
        `https://[${address}]/`,
        [address],
      );
      assert.match(
        result.outputSummary ?? "",
        /^Tool call denied \(ssrf_blocked\)/,
      );
    });
  }
});

Deno.test("F25: a provider base URL on a site-local address needs allow_local", async () => {
  await using dir = await tempDir();
  await write(
    `${dir.path}/home/config.toml`,
    '[[providers]]\nid = "site"\nkind = "openai-compatible"\nbase_url = "https://[fec0::1]/v1"\n',
  );
  const r = await runCli(["config", "show"], {
    env: { RELAVIUM_HOME: `${dir.path}/home`, NO_COLOR: "1" },
    cwd: dir.path,
  });
  assert.equal(r.code, 2, r.stderr);
  assert.match(r.stderr, /config\.toml:4: providers\[0\]\.base_url: /);
  assert.match(r.stderr, /allow_local/);
});
