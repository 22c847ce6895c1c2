/**
 * The fault of a provider id only an untrusted project file declares
 * (kept apart from `apply_trust.ts` so that a run loads no allowlist
 * module to name it).
 *
 * @module
 */
import { type CliFault, fault } from "../fault.ts";
import type { UntrustedFile } from "./apply_trust.ts";

/**
 * The fault of a provider an untrusted project file declares: its
 * `[[providers]]` entries are ignored, so without this the id would read
 * as undeclared. Names the file and the command that trusts it.
 *
 * @param ids The provider ids a run needs (primary, then fallbacks).
 * @param untrusted The untrusted files and what they lost.
 * @param command How the person runs the CLI (default `relavium`).
 * @returns A `provider_config` fault, or `undefined` when no id is one.
 */
export function withheldProviderFault(
  ids: readonly string[],
  untrusted: readonly UntrustedFile[],
  command = "relavium",
): CliFault | undefined {
  for (const id of ids) {
    const file = untrusted.find((u) => u.ignored.includes(`providers.${id}`));
    if (file === undefined) continue;
    return fault(
      "provider_config",
      `Provider "${id}" is declared in ${file.path}, which you have not trusted: its [[providers]] entries are ignored until you do (review it, then run: ${command} trust)`,
    );
  }
  return undefined;
}
