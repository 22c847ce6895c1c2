/** Every `examples/*.ts` runs offline from a checkout; the README shows the quick start. */
import assert from "node:assert/strict";

const root = new URL("../", import.meta.url);
/** Examples that talk to an endpoint of their own, run against a loopback one. */
const LIVE = ["custom_endpoint.ts"];
const examples = [...Deno.readDirSync(new URL("examples/", root))]
  .filter((e) => e.isFile && e.name.endsWith(".ts"))
  .map((e) => e.name)
  .filter((name) => !LIVE.includes(name))
  .sort();

/**
 * Permissions an example needs beyond reading, writing and env: the MCP
 * example starts its server (a `deno` child).
 */
const EXTRA: Record<string, string[]> = { "mcp_tools.ts": ["--allow-run"] };

async function run(name: string): Promise<Deno.CommandOutput> {
  const cassette = `examples/${name.replace(/\.ts$/, ".cassette.json")}`;
  return await new Deno.Command(Deno.execPath(), {
    // No --allow-net: a run that tried the network would fail.
    args: [
      "run",
      "--no-prompt",
      "--allow-read",
      "--allow-write",
      "--allow-env",
      ...(EXTRA[name] ?? []),
      `examples/${name}`,
      cassette,
    ],
    cwd: root,
    stdin: "null",
    stdout: "piped",
    stderr: "piped",
  }).output();
}

Deno.test("there are examples, each with its cassette", () => {
  assert.ok(examples.includes("quick_start.ts"));
  assert.ok(examples.includes("resume_with_events.ts"));
  for (const name of examples) {
    const cassette = new URL(
      `examples/${name.replace(/\.ts$/, ".cassette.json")}`,
      root,
    );
    assert.ok(Deno.statSync(cassette).isFile, `${name} has a cassette`);
  }
});

for (const name of examples) {
  Deno.test(`examples/${name} runs offline`, async () => {
    const out = await run(name);
    const stdout = new TextDecoder().decode(out.stdout);
    const stderr = new TextDecoder().decode(out.stderr);
    assert.equal(out.code, 0, stderr);
    assert.equal(stderr, "");
    assert.doesNotMatch(stdout, /failed|error/i);
    if (name === "quick_start.ts") {
      assert.match(
        stdout,
        /^A session store keeps every completed turn of a conversation, so it can be resumed exactly\.\n\[completed: 31 in, 17 out, \d+ µ¢\]\n$/,
      );
    }
    if (name === "mcp_tools.ts") {
      // The server's answer reached the model, and the server was stopped.
      assert.equal(
        stdout,
        "mcp calc: connecting\nmcp calc: connected\nresult mcp_calc_add: 5\ncompleted: 2 + 3 = 5.\nmcp calc: closed\n",
      );
    }
    if (name === "custom_tool.ts") {
      assert.match(stdout, /^call save_note .*\nresult save_note: saved$/m);
      assert.match(stdout, /^notes: \["'the quick brown fox' has 4 words"\]$/m);
    }
    if (name === "resume_with_events.ts") {
      assert.match(stdout, /resumed \S+ after 1 turn\(s\)/);
      assert.match(stdout, /turn 2 \(gpt-5\.4\): Your name is Ada\./);
      assert.match(stdout, /stored messages: 4/);
    }
  });
}

Deno.test("examples/custom_endpoint.ts streams from a loopback OpenAI-compatible server", async () => {
  const sse = [
    { choices: [{ index: 0, delta: { role: "assistant", content: "Hello" } }] },
    { choices: [{ index: 0, delta: { content: " there." } }] },
    {
      choices: [{ index: 0, delta: {}, finish_reason: "stop" }],
      usage: { prompt_tokens: 12, completion_tokens: 3 },
    },
  ].map((c) => `data: ${JSON.stringify(c)}\n\n`).join("") + "data: [DONE]\n\n";
  const seen: { path: string; auth: string | null; model: string }[] = [];
  const server = Deno.serve(
    { hostname: "127.0.0.1", port: 0, onListen() {} },
    async (req) => {
      const body = await req.json() as { model: string };
      seen.push({
        path: new URL(req.url).pathname,
        auth: req.headers.get("authorization"),
        model: body.model,
      });
      return new Response(sse, {
        headers: { "content-type": "text/event-stream" },
      });
    },
  );
  try {
    const out = await new Deno.Command(Deno.execPath(), {
      args: [
        "run",
        "--no-prompt",
        "--allow-read",
        "--allow-env",
        "--allow-net=127.0.0.1",
        "examples/custom_endpoint.ts",
        `http://127.0.0.1:${server.addr.port}/v1`,
      ],
      cwd: root,
      env: { RELAVIUM_LOCAL_API_KEY: "" },
      stdin: "null",
      stdout: "piped",
      stderr: "piped",
    }).output();
    const stderr = new TextDecoder().decode(out.stderr);
    assert.equal(out.code, 0, stderr);
    assert.equal(stderr, "");
    assert.equal(
      new TextDecoder().decode(out.stdout),
      "completed: Hello there.\n",
    );
    assert.deepEqual(seen, [{
      path: "/v1/chat/completions",
      auth: null,
      model: "my-model",
    }]);
  } finally {
    await server.shutdown();
  }
});

Deno.test("the README's library section shows examples/quick_start.ts verbatim", () => {
  const readme = Deno.readTextFileSync(new URL("README.md", root));
  const quickStart = Deno.readTextFileSync(
    new URL("examples/quick_start.ts", root),
  );
  const section = readme.slice(readme.indexOf("## The library"));
  assert.ok(section.includes("deno add jsr:@relavium/session"));
  assert.ok(
    section.includes("```ts ignore\n" + quickStart + "```\n"),
    "the quick start appears as one ts block, unchanged (run from its file, not as a doc test)",
  );
  for (const name of examples) {
    assert.ok(
      section.includes(
        `deno run -A examples/${name} examples/${
          name.replace(/\.ts$/, ".cassette.json")
        }`,
      ),
      `the README says how to run ${name}`,
    );
  }
});
