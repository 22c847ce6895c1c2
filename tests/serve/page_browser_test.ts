/**
 * The page at `/` in a real headless Chromium, whose every request goes
 * through a loopback TCP relay: sign in, open a session that already had
 * a turn before this server started (its chart shows it), send a message,
 * watch it stream, cut every connection mid-turn at the relay, and find
 * every token exactly once after the page reconnects from the last id it
 * got; then reload and find the transcript and the chart. A screenshot
 * goes under the test's temp folder.
 *
 * Locally, without Chromium, it is skipped with one line saying how to
 * run it; under CI=true it always runs.
 */
import assert from "node:assert/strict";
import { chromiumPath, launch } from "./_cdp.ts";
import {
  call,
  fakeProvider,
  newSession,
  openSse,
  prepareFolder,
  startServe,
} from "./_kit.ts";
import { tcpProxy } from "./_tcp_proxy.ts";

const binary = chromiumPath();
const ci = Deno.env.get("CI") === "true";
if (binary === undefined && !ci) {
  Deno.stderr.writeSync(
    new TextEncoder().encode(
      "skipped page_browser_test: install Chromium (apt-get install -y --no-install-recommends chromium) or run with CI=true\n",
    ),
  );
}

const $answer =
  "[...document.querySelectorAll('.answer')].at(-1)?.textContent ?? ''";
const $conn = "document.getElementById('conn').textContent";
const $bars = "document.querySelectorAll('#chart rect').length";
const $titles =
  "[...document.querySelectorAll('#chart title')].map((t) => t.textContent)";

Deno.test({
  name:
    "the page shows every token exactly once after the network drops mid-turn",
  ignore: binary === undefined && !ci,
  async fn() {
    assert.ok(binary !== undefined, "CI needs chromium (.ci/run installs it)");
    await using provider = fakeProvider();
    const dir = await Deno.makeTempDir({ prefix: "serve-page-" });
    try {
      const folder = await prepareFolder(dir, provider.url);
      // A turn before this server: its figures come from the store.
      let sessionId: string;
      {
        await using first = await startServe(folder);
        sessionId = await newSession(first);
        provider.push({ tokens: ["earlier answer"] });
        const sent = await call(
          first,
          "POST",
          `/v1/sessions/${sessionId}/messages`,
          { text: "earlier" },
        );
        assert.equal(sent.status, 202);
        const stream = await openSse(first, sessionId, {
          lastEventId: String(sent.body["after"]),
          query: "?until=idle",
        });
        assert.ok(await stream.until((f) => f.event === "server:idle"));
        await stream.close();
        assert.equal((await first.stop()).code, 0);
      }
      await using server = await startServe(folder);
      const port = Number(new URL(server.url).port);
      await using relay = tcpProxy(port);
      await using page = await launch(binary, dir, {
        proxy: `127.0.0.1:${relay.port}`,
      });
      await page.send("Page.navigate", {
        url: `${server.url}/#s=${encodeURIComponent(sessionId)}`,
      });
      await page.waitFor(
        "document.readyState === 'complete' && !!document.getElementById('token')",
        "the page",
      );
      await page.evaluate(`
      document.getElementById("token").value = ${JSON.stringify(server.token)};
      document.getElementById("loginForm").requestSubmit();`);
      await page.waitFor(`${$conn} === 'live'`, "the stream");
      // The turn from before this server is charted (one pair of bars).
      assert.equal(await page.evaluate<number>($bars), 2);
      assert.match(
        (await page.evaluate<string[]>($titles))[0] ?? "",
        /^turn 1: 11 in, 7 out, \d+ µ¢$/,
      );
      assert.ok(relay.accepted() > 0, "the page came through the relay");
      const tokens = Array.from(
        { length: 20 },
        (_, i) => `t${String(i).padStart(2, "0")} `,
      );
      const gate = Promise.withResolvers<void>();
      provider.push({ tokens, gate: { after: 8, open: gate.promise } });
      // Every state the indicator shows, in order.
      await page.evaluate(`
      window.seen = [];
      new MutationObserver(() => window.seen.push(${$conn}))
        .observe(document.getElementById("conn"), { childList: true, characterData: true, subtree: true });
      document.getElementById("text").value = "stream please";
      document.getElementById("compose").requestSubmit();`);
      await page.waitFor(`(${$answer}).includes("t07 ")`, "the first tokens");
      // The provider holds the rest: nothing arrives after this id.
      const lastSeen = await page.evaluate<string>("state.lastId");
      const before = relay.requestLines().length;
      assert.ok(relay.sever() > 0, "connections were open");
      await page.waitFor(
        "window.seen.includes('reconnecting…')",
        "the reconnecting indicator",
      );
      await page.waitFor(
        `window.seen.lastIndexOf('live') > window.seen.indexOf('reconnecting…')`,
        "the page back live",
      );
      // It came back from the last id it had.
      const resumed = relay.requestLines().slice(before).map((l) =>
        new URL(l.split(" ")[1] ?? "", server.url)
      ).find((u) => u.pathname.endsWith("/events"));
      assert.ok(
        resumed !== undefined,
        `the page opened the stream again: ${relay.requestLines().join("\n")}`,
      );
      assert.equal(resumed.searchParams.get("after"), lastSeen);
      gate.resolve();
      await page.waitFor(
        `document.getElementById('send').disabled === false && ${$conn} === 'live'`,
        "the end of the turn",
      );
      assert.equal(await page.evaluate<string>($answer), tokens.join(""));
      // Both turns charted: the earlier one and this one.
      await page.waitFor(`${$bars} === 4`, "the chart of two turns");
      const titles = await page.evaluate<string[]>($titles);
      assert.deepEqual(titles.map((t) => t.split(":")[0]), [
        "turn 1",
        "turn 2",
      ]);
      const shot = await page.send("Page.captureScreenshot", {
        format: "png",
      }) as {
        data: string;
      };
      const png = Uint8Array.from(atob(shot.data), (c) => c.charCodeAt(0));
      await Deno.writeFile(`${dir}/page.png`, png);
      assert.ok(png.length > 1000);
      // After a reload the transcript and the chart come from the server.
      await page.send("Page.reload");
      await page.waitFor(
        `(${$answer}) === ${JSON.stringify(tokens.join(""))}`,
        "the transcript after a reload",
      );
      await page.waitFor(`${$bars} === 4`, "the chart after a reload");
    } finally {
      // After the browser and the servers have ended (they write there).
      await Deno.remove(dir, { recursive: true });
    }
  },
});

Deno.test({
  name: "the page shows a new session's MCP server and its state",
  ignore: binary === undefined && !ci,
  async fn() {
    assert.ok(binary !== undefined, "CI needs chromium (.ci/run installs it)");
    await using provider = fakeProvider();
    const dir = await Deno.makeTempDir({ prefix: "serve-page-mcp-" });
    try {
      const folder = await prepareFolder(dir, provider.url);
      // A configured server whose program is missing: it fails to start.
      await Deno.writeTextFile(
        `${dir}/home/config.toml`,
        [
          "",
          "[[mcp_servers]]",
          'id = "calc"',
          'transport = "stdio"',
          `command = "${dir}/no-such-server"`,
          "",
        ].join("\n"),
        { append: true },
      );
      await Deno.writeTextFile(
        `${dir}/proj/m.agent.yaml`,
        "id: m\nmodel: fake-model\nprovider: fake\nsystem_prompt: hi\nmcp_servers: [{ ref: calc }]\n",
      );
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
      document.getElementById("agent").value = "m.agent.yaml";
      document.getElementById("newForm").requestSubmit();`);
      const line = await page.waitFor<string>(
        "[...document.querySelectorAll('#transcript .mcp')].map((d) => d.textContent).find((t) => t.includes('failed'))",
        "the MCP server's line",
      );
      assert.match(line, /^MCP server calc: failed: .+/);
      assert.equal(
        await page.evaluate<string>(
          "document.getElementById('mcp').textContent",
        ),
        "MCP calc: failed",
      );
    } finally {
      // After the browser and the servers have ended (they write there).
      await Deno.remove(dir, { recursive: true });
    }
  },
});
