import { z } from "zod";
import type { Holds, Same } from "../../schema/_type_equal.ts";
interface Written { id: string; note?: string }
const inferred = z.strictObject({ id: z.string(), note: z.string() });
export const schema: z.ZodType<Written> = inferred;
type _Check = Holds<Same<z.infer<typeof inferred>, Written>>;
