/**
 * Test wiring: one flat object of effects, settings and hooks split into
 * the three kinds `AgentSession` takes.
 */
import {
  HOOK_KEYS,
  type SessionDeps,
  type SessionEffects,
  type SessionHooks,
  type SessionSettings,
  SETTING_KEYS,
} from "../../session/deps.ts";

const SETTINGS = new Set<string>(SETTING_KEYS);
const HOOKS = new Set<string>(["emit", ...HOOK_KEYS]);

/** Splits flat test deps into `{ effects, settings, hooks }`. */
export function split(deps: SessionDeps): {
  effects: SessionEffects;
  settings: SessionSettings;
  hooks: SessionHooks;
} {
  const effects: Record<string, unknown> = {};
  const settings: Record<string, unknown> = {};
  const hooks: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(deps)) {
    if (SETTINGS.has(key)) settings[key] = value;
    else if (HOOKS.has(key)) hooks[key] = value;
    else effects[key] = value;
  }
  return {
    effects: effects as unknown as SessionEffects,
    settings: settings as SessionSettings,
    hooks: hooks as unknown as SessionHooks,
  };
}
