/**
 * The first-use question on a terminal: a project or workspace file that
 * asks for more than the user granted is offered for trust once, before
 * the session starts. `y` records the exact content the question was
 * about as trusted (the SHA-256 of the bytes read, never a second read),
 * so its settings apply from this session on; anything else leaves it
 * untrusted (its widening keys stay ignored, with the usual notice).
 *
 * @module
 */
import type { CommandEnv } from "../command_env.ts";
import { configRequestOf } from "../command_env.ts";
import { loadCliConfig } from "../config/config.ts";
import { recordTrust } from "../config/trust_store.ts";
import { stripControl } from "../io/control.ts";
import type { LineReader } from "../io/stdin.ts";
import { readYesNo } from "./approval_prompt.ts";

/**
 * Asks, for each untrusted file whose widening keys would be ignored,
 * whether to trust it. Errors (an unreadable config, no home) leave
 * everything as it is: the session's own config load reports them.
 *
 * @param ctx The command context (a terminal on both ends).
 * @param reader The chat's line reader.
 */
export async function offerTrust(
  ctx: CommandEnv,
  reader: LineReader,
): Promise<void> {
  const loaded = await loadCliConfig(configRequestOf(ctx));
  if (!loaded.ok) return;
  const home = loaded.value.paths.relaviumDir;
  if (home === undefined) return;
  for (const file of loaded.value.untrusted) {
    if (file.ignored.length === 0) continue;
    ctx.io.stderr.write(
      `${stripControl(file.path)} asks for more than your own config grants: ${
        file.ignored.map((k) => stripControl(k)).join(", ")
      }. Trust this file's exact content? [y] yes  [n] no `,
    );
    const yes = await readYesNo(ctx.io, reader);
    if (yes !== true) continue;
    // The hash of the bytes the question showed: content swapped in while
    // it waited stays untrusted.
    const sha256 = file.sha256;
    if (sha256 === undefined) continue;
    const saved = await recordTrust(home, { [file.path]: sha256 });
    if (saved.ok) {
      ctx.io.stderr.write(
        `Trusted ${
          stripControl(file.path)
        }: its settings apply until it changes\n`,
      );
    }
  }
}
