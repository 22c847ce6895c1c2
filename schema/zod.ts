/**
 * The one zod every room declares its schemas with (agent, context, stream
 * chunks, cassettes, the CLI's config): `zod/mini`, the same validator and
 * checks as `zod` through functions instead of methods. Its schemas cost
 * about half of `zod`'s to build the first time in a process (`zod`
 * installs its forty-odd methods, and each class's own, on every schema
 * class it meets), and they compose with `zod` schemas either way.
 *
 * `zod/mini` sets no message locale of its own: English is set here, as
 * `zod` does when it builds its first schema, unless one is set already.
 *
 * @module
 */
import { z } from "zod/mini";

if (z.config().localeError === undefined) z.config(z.locales.en());

export { z };
