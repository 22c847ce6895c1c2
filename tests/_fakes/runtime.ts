/** A host runtime over fakes: deterministic clock and ids, no network. */
import type { SessionRuntime } from "../../host/runtime.ts";
import type {
  Clock,
  IdSource,
  SessionDeps,
  SessionHooks,
  SessionSettings,
} from "../../session/deps.ts";
import { split } from "../_kit/session_parts.ts";
import type { ToolRegistry } from "../../tools/registry.ts";
import { sequentialIds, steppingClock } from "./clock.ts";

/** Engine deps as tests write them, flat. */
export type FlatDeps =
  & Partial<Omit<SessionDeps, "clock" | "ids" | "emit">>
  & Pick<SessionDeps, "resolveProvider">;

/**
 * Splits flat deps into the host's `runtime`, `tools`, `settings` and
 * `hooks`. No
 * catalog ⇒ an empty one (nothing priced), as an engine without one.
 */
export function hostParts(
  deps: FlatDeps,
  options: { clock?: Clock; ids?: IdSource; workingDir?: string } = {},
): {
  runtime: SessionRuntime;
  tools?: ToolRegistry;
  settings: SessionSettings;
  hooks: Omit<SessionHooks, "emit" | "commit" | "reserveEffectTurnKey">;
} {
  const { resolveProvider, keyFor, sleep, catalog, tools, ...rest } = deps;
  const { settings, hooks } = split(rest as SessionDeps);
  const runtime: SessionRuntime = {
    clock: options.clock ?? steppingClock(),
    ids: options.ids ?? sequentialIds(),
    sleep: sleep ?? (() => Promise.resolve()),
    fetch: () => Promise.reject(new Error("offline test")),
    catalog: catalog ?? { lookup: () => undefined },
    keyFor: keyFor ?? (() => ""),
    workingDir: options.workingDir ?? "/work",
    resolveProvider,
  };
  return {
    runtime,
    ...(tools === undefined ? {} : { tools }),
    settings,
    hooks,
  };
}
