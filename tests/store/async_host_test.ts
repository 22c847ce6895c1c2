/**
 * The host on an asynchronous store (memory behind promises, and
 * Postgres): each request leaves only after its pending journal row is
 * written, `session:turn_completed` is published only after the turn is
 * stored, a tool call gets a durable effect turn key, and a resume reads
 * the stored session back. Postgres comes from `tests/store/_pg.ts`.
 */
import assert from "node:assert/strict";
import { openSession, resumeSession } from "../../host/host.ts";
import { createScriptedProvider } from "../../llm/scripted_provider.ts";
import type { LlmProvider } from "../../llm/provider.ts";
import type { StreamChunk } from "../../llm/chunk.ts";
import type { ToolRegistry } from "../../tools/registry.ts";
import type { AsyncSessionStore } from "../../store/store.ts";
import { sequentialIds, steppingClock } from "../_fakes/clock.ts";
import { createFakeRegistry } from "../_fakes/tools.ts";
import { hostParts } from "../_fakes/runtime.ts";
import { AGENT, reply, toolCall } from "../session/_harness.ts";
import { CONTRACT_FACTORIES } from "./_contract.ts";

const CONTEXT = { workingDir: "/work", fsScopeTier: "sandboxed" as const };

/**
 * The scripted provider, reading the store's pending journal rows as each
 * request is about to leave.
 */
function watched(
  store: AsyncSessionStore,
  sessionId: () => string,
  pendingSeen: number[],
): LlmProvider {
  const inner = createScriptedProvider({
    id: "openai",
    script: [
      toolCall("c1", "read_file", { path: "a.txt" }),
      reply("read it"),
      reply("again"),
    ],
  });
  return new Proxy(inner, {
    get(t, k) {
      if (k !== "stream") return Reflect.get(t, k);
      return async function* (
        ...args: Parameters<LlmProvider["stream"]>
      ): AsyncGenerator<StreamChunk> {
        const coverage = await store.coverage?.(sessionId());
        pendingSeen.push(coverage?.pending.length ?? -1);
        yield* t.stream(...args);
      };
    },
  });
}

for (const factory of CONTRACT_FACTORIES.filter((f) => f.name !== "sqlite")) {
  Deno.test({
    name:
      `host on an asynchronous store: durable steps awaited [${factory.name}]`,
    ignore: factory.skip !== undefined,
    async fn() {
      await using s = await factory.open();
      const { store } = s;
      let id = "";
      const pendingSeen: number[] = [];
      const provider = watched(store, () => id, pendingSeen);
      const parts = hostParts({
        resolveProvider: (p) => p === "openai" ? provider : undefined,
        keyFor: () => "k",
        tools: createFakeRegistry({ read_file: () => "file body" }),
      }, { clock: steppingClock(), ids: sequentialIds("h") });
      const live = await openSession({
        store,
        agent: AGENT,
        context: CONTEXT,
        ...parts,
      });
      id = live.sessionId;
      const storedAtCompletion: number[] = [];
      const reading = (async () => {
        for await (const e of live.events) {
          if (e.type === "session:turn_completed") {
            storedAtCompletion.push(
              (await store.load(id))?.messages.length ?? 0,
            );
          }
        }
      })();
      const first = await live.session.sendMessage("read a.txt");
      assert.equal(first.kind, "completed");
      const second = await live.session.sendMessage("once more");
      assert.equal(second.kind, "completed");
      assert.equal(live.latched, false, String(live.latchError));
      live.close();
      await reading;
      // Every request found its own journal row written before it left.
      assert.deepEqual(pendingSeen, [1, 1, 1]);
      // Each completion was announced with its turn already stored.
      assert.deepEqual(storedAtCompletion, [4, 6]);
      const loaded = await store.load(id);
      assert.equal(loaded?.record.status, "ended");
      assert.equal(loaded?.messages.length, 6);
      const call = loaded?.messages[1]?.content[0];
      assert.equal(call?.type === "tool_call" && call.id, "session-tool:1:0");
      assert.deepEqual(await store.coverage?.(id), {
        pending: [],
        unrecordedMicrocents: 0,
      });
      assert.equal(await store.readLease?.(id), undefined);

      const back = await resumeSession({
        store,
        sessionId: id,
        ...hostParts({
          resolveProvider: () => undefined,
        }, { clock: steppingClock(), ids: sequentialIds("r") }),
      });
      assert.ok(back.ok);
      assert.equal(back.value.session.state, "idle");
      back.value.close();
    },
  });
}

for (const factory of CONTRACT_FACTORIES.filter((f) => f.name !== "sqlite")) {
  Deno.test({
    name:
      `host on an asynchronous store: a user command first gets a durable turn key [${factory.name}]`,
    ignore: factory.skip !== undefined,
    async fn() {
      await using s = await factory.open();
      const { store } = s;
      const registry = createFakeRegistry({});
      const tools: ToolRegistry = {
        ...registry,
        runUserCommand(request, ctx) {
          const admitted = ctx.admit();
          return Promise.resolve(
            admitted.allow
              ? {
                kind: "ran",
                exitCode: 0,
                stdout: request.command,
                stderr: "",
              }
              : { kind: "failed", message: admitted.error.message },
          );
        },
      };
      const live = await openSession({
        store,
        agent: AGENT,
        context: CONTEXT,
        ...hostParts({
          resolveProvider: () => undefined,
          keyFor: () => "k",
          tools,
        }, { clock: steppingClock(), ids: sequentialIds("u") }),
      });
      // `session:started` is published after the writes queued at open.
      const first = await live.events[Symbol.asyncIterator]().next();
      assert.equal(first.value?.type, "session:started");
      const ran = await live.session.runUserCommand("ls", []);
      assert.deepEqual(ran, {
        kind: "ran",
        exitCode: 0,
        stdout: "ls",
        stderr: "",
      });
      live.close();
    },
  });
}
