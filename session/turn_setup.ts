/**
 * Assembles one turn: the request base, the
 * advertised tools, the turn's chain with its admission, the effect ids,
 * and the {@linkcode TurnFlowHost} the flow drives.
 *
 * @module
 */
import type { PlanEntry } from "../llm/chain.ts";
import { createChain } from "../llm/chain.ts";
import type { LlmRequest } from "../llm/provider.ts";
import type { Agent } from "../schema/agent.ts";
import type { TurnPolicy } from "../tools/registry.ts";
import type { WindowEnv } from "./window_ops.ts";
import type { SpendLedger } from "./ledger.ts";
import { authoritativeWindow } from "./measure.ts";
import { projectHistory } from "./projection.ts";
import { runTurnCore, type TurnCoreResult } from "./turn.ts";
import type { TurnFlowHost } from "./turn_flow.ts";
import type { TurnTally } from "./turn_tally.ts";

/**
 * What {@linkcode prepareTurn} is given by the session.
 */
export interface TurnSetupInput {
  /** The turn's running account. */
  tally: TurnTally;
  /** The agent. */
  agent: Agent;
  /** The agent ref (`nodeId`). */
  agentRef: string;
  /** The plan. */
  plan: PlanEntry[];
  /** The turn policy snapshot. */
  policy: TurnPolicy | undefined;
  /** The pending user text. */
  pending: string;
  /** The turn's abort controller. */
  controller: AbortController;
  /** Spend and admission. */
  ledger: SpendLedger;
  /** Builds the context environment over a plan, tools and signal. */
  env(tools: WindowEnv["tools"], signal: AbortSignal): WindowEnv;
  /** The session's granted tools (after narrowing). */
  granted: string[];
  /** Whether automatic compaction is permitted. */
  automatic: boolean;
  /** Whether the memory policy allows trims. */
  trimAllowed: boolean;
  /** Emits the terminal. */
  finish(result: TurnCoreResult, idle: boolean): void;
  /** A fresh signal for after-turn work. */
  renewSignal(): AbortSignal;
  /** The next in-memory turn key (no persister wired). */
  nextLocalTurnKey(): number;
}

/**
 * Builds the flow host of one turn.
 *
 * @param input The session's parts.
 * @returns The host the turn flow drives.
 */
export function prepareTurn(input: TurnSetupInput): TurnFlowHost {
  const { agent, plan, policy, pending, controller, ledger } = input;
  const probe = input.env([], controller.signal);
  const deps = probe.deps;
  const base: Omit<LlmRequest, "messages" | "signal" | "tools"> = {
    model: plan[0]?.model ?? agent.model,
    system: probe.system,
  };
  if (agent.temperature !== undefined) base.temperature = agent.temperature;
  if (agent.max_tokens !== undefined) base.maxTokens = agent.max_tokens;
  if (agent.reasoning_effort !== undefined) {
    base.reasoningEffort = agent.reasoning_effort;
  }
  const tools = deps.tools?.advertise(input.granted, policy) ?? [];
  const env = input.env(tools, controller.signal);
  const chain = createChain({
    plan,
    keyFor: (id) => deps.keyFor(id),
    sleep: (ms, signal) => deps.sleep(ms, signal),
    now: () => deps.clock.now(),
    admit: (entry, request) => ledger.admit("turn", plan, entry, request),
    onAttempt: (report) => {
      input.tally.settle(report);
      ledger.record(report, (spent) => input.tally.costs.push(spent));
    },
  });
  let turnKey: number | undefined;
  let slot = 0;
  const flush = deps.flushBudgetCommitments;
  return {
    env,
    pending,
    automatic: input.automatic,
    trimAllowed: input.trimAllowed,
    afterTurnEnabled: deps.afterTurnCompaction !== false,
    isCancelled: () => env.isCancelled(),
    ...(flush === undefined ? {} : { flush: () => flush.call(deps) }),
    finish: (result, idle) => input.finish(result, idle),
    renewSignal: () => input.renewSignal(),
    installReply(reply: string): void {
      const { messages, spans } = env.read();
      const start = messages.length;
      messages.push({
        role: "user",
        content: [{ type: "text", text: pending }],
      });
      if (reply !== "") {
        messages.push({
          role: "assistant",
          content: [{ type: "text", text: reply }],
        });
      }
      spans.push({ start, end: messages.length });
    },
    runCore(): Promise<TurnCoreResult> {
      const state = env.read();
      return runTurnCore({
        tally: input.tally,
        chain,
        base,
        tools,
        messages: projectHistory({
          ...(agent.memory === undefined ? {} : { memory: agent.memory }),
          messages: state.messages,
          spans: state.spans,
          ...(state.summary === undefined ? {} : { summary: state.summary }),
          pending,
        }),
        signal: controller.signal,
        nodeId: input.agentRef,
        emit: (d) => env.emit(d),
        ...(deps.tools === undefined ? {} : { registry: deps.tools }),
        granted: input.granted,
        ...(policy === undefined ? {} : { policy }),
        interactive: deps.interactive ?? false,
        admitTool: (toolId) =>
          deps.preEgress?.({ kind: "tool", toolId }) ?? { allow: true },
        nextToolCallId: () => {
          turnKey ??= deps.reserveEffectTurnKey?.() ?? input.nextLocalTurnKey();
          if (!Number.isSafeInteger(turnKey) || turnKey < 1) {
            throw new RangeError("Invalid turn key");
          }
          return `session-tool:${turnKey}:${slot++}`;
        },
        isCancelled: () => env.isCancelled(),
        windowOf: (model) => {
          const e = plan.find((p) => p.model === model);
          return e === undefined
            ? undefined
            : authoritativeWindow(e.provider, model);
        },
      });
    },
  };
}
