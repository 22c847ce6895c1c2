/**
 * The page at `/` in a real headless Chromium: sign in, start a session,
 * send a message, watch it stream, lose the stream mid-turn, and find
 * every token exactly once after the page reconnects; then reload and
 * find the transcript. A screenshot goes under the test's temp folder.
 *
 * Locally, without Chromium, it is skipped with one line saying how to
 * run it; under CI=true it always runs.
 */
import assert from "node:assert/strict";
import { chromiumPath, launch } from "./_cdp.ts";
import { fakeProvider, prepareFolder, startServe } from "./_kit.ts";

const binary = chromiumPath();
const ci = Deno.env.get("CI") === "true";
if (binary === undefined && !ci) {
  Deno.stderr.writeSync(
    new TextEncoder().encode(
      "skipped page_browser_test: install Chromium (apt-get install -y --no-install-recommends chromium) or run with CI=true\n",
    ),
  );
}

Deno.test({
  name:
    "the page streams a turn and shows every token exactly once after a reconnect",
  ignore: binary === undefined && !ci,
  async fn() {
    assert.ok(binary !== undefined, "CI needs chromium (.ci/run installs it)");
    await using provider = fakeProvider();
    const dir = await Deno.makeTempDir({ prefix: "serve-page-" });
    const folder = await prepareFolder(dir, provider.url);
    await using server = await startServe(folder);
    await using page = await launch(binary, dir);
    await page.send("Page.navigate", { url: `${server.url}/` });
    await page.waitFor(
      "document.readyState === 'complete' && !!document.getElementById('token')",
      "the page",
    );
    await page.evaluate(`
      document.getElementById("token").value = ${JSON.stringify(server.token)};
      document.getElementById("loginForm").requestSubmit();`);
    await page.waitFor(
      "!document.getElementById('app').classList.contains('hidden')",
      "sign-in",
    );
    await page.evaluate(`
      document.getElementById("agent").value = "a.agent.yaml";
      document.getElementById("newForm").requestSubmit();`);
    await page.waitFor(
      "document.getElementById('conn').textContent === 'live'",
      "the stream",
    );
    const tokens = Array.from(
      { length: 20 },
      (_, i) => `t${String(i).padStart(2, "0")} `,
    );
    const gate = Promise.withResolvers<void>();
    provider.push({ tokens, gate: { after: 8, open: gate.promise } });
    await page.evaluate(`
      document.getElementById("text").value = "stream please";
      document.getElementById("compose").requestSubmit();`);
    const answer =
      "[...document.querySelectorAll('.answer')].at(-1)?.textContent ?? ''";
    await page.waitFor(`(${answer}).includes("t03 ")`, "the first tokens");
    // Lose the stream mid-turn (the connection closes); the page says so.
    const shown = await page.evaluate<string>(`
      const es = state.es; es.close(); es.onerror(new Event("error"));
      document.getElementById("conn").textContent`);
    assert.equal(shown, "reconnecting…");
    gate.resolve();
    await page.waitFor(
      "document.getElementById('send').disabled === false && document.getElementById('conn').textContent === 'live'",
      "the end of the turn",
    );
    assert.equal(await page.evaluate<string>(answer), tokens.join(""));
    assert.equal(
      await page.evaluate<number>(
        "document.querySelectorAll('#chart rect').length",
      ),
      2,
    );
    const shot = await page.send("Page.captureScreenshot", {
      format: "png",
    }) as {
      data: string;
    };
    const png = Uint8Array.from(atob(shot.data), (c) => c.charCodeAt(0));
    await Deno.writeFile(`${dir}/page.png`, png);
    assert.ok(png.length > 1000);
    // After a reload the transcript comes from the server.
    await page.send("Page.reload");
    await page.waitFor(
      `(${answer}) === ${JSON.stringify(tokens.join(""))}`,
      "the transcript after a reload",
    );
    // The chart of the turn comes back too (from the server's buffer).
    await page.waitFor(
      "document.querySelectorAll('#chart rect').length === 2",
      "the chart after a reload",
    );
    await Deno.remove(dir, { recursive: true });
  },
});
