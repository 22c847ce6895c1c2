/**
 * Private: command-line helpers shared by the permission printer and its
 * warnings.
 *
 * @module
 */

/** The first whitespace-separated token of a command line. */
export function firstToken(command: string): string | undefined {
  const token = command.trim().split(/\s+/)[0];
  return token === undefined || token === "" ? undefined : token;
}
