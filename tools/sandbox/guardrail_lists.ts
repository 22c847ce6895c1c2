/**
 * What the user lists for the guardrails: commands and hosts.
 *
 * @module
 */
import type { CommandAllowlist } from "./command_allowlist.ts";

/**
 * The guardrail configuration of a registry (from `[chat]`
 * `allowed_commands`, `allowed_command_globs`, `allowed_domains`). Every
 * list defaults to empty, which denies everything.
 */
export interface ToolGuardrails extends CommandAllowlist {
  /** Exact hosts `http_request` may reach (`[]` ⇒ none). */
  allowedDomains?: readonly string[];
  /**
   * Test-only: lets `http_request` reach `127.0.0.0/8` and `::1` literals.
   * Never set it outside tests; the CLI never does.
   */
  allowLoopbackForTests?: boolean;
}
