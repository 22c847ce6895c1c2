import assert from "node:assert/strict";
import { workflowIdFromTitle } from "../../export/slug.ts";

const UUID = "39271b8b-ff7a-4fd7-a98d-12b38fc40374";
const UPPER_UUID = "39271B8B-FF7A-4FD7-A98D-12B38FC40374";
/** `39271B8B-FF7A-4FD7-A98D-` (the first 24 code units) as 4-digit hex. */
const UPPER_UUID_HEX = "0033003900320037003100420038004200" +
  "2d004600460037004100" +
  "2d0034004600440037002d0041003900380044002d";
const KEBAB = /^[a-z0-9]+(-[a-z0-9]+)*$/;

interface Case {
  name: string;
  title: string | undefined;
  id?: string;
  want: string;
}

const cases: Case[] = [
  {
    name: "plain ASCII",
    title: "Hello, this is a plain chat",
    want: "hello-this-is-a-plain-chat",
  },
  {
    name: "upstream title with an ellipsis",
    title: "What does greet.js export? [[tool:read_…",
    want: "what-does-greet-js-export-tool-read",
  },
  {
    name: "accented letters (precomposed)",
    title: "Café Déjà Vu à Noël",
    want: "cafe-deja-vu-a-noel",
  },
  {
    name: "decomposed letters (combining marks)",
    title: "Cafe\u0301 Noe\u0308l Å\u030a",
    want: "cafe-noel-a",
  },
  {
    name: "Turkish dotless ı and dotted İ",
    title: "Işık Ilık İstanbul",
    want: "isik-ilik-istanbul",
  },
  {
    name: "German ß and capital ẞ",
    title: "Straße GROẞE Größe",
    want: "strasse-grosse-grosse",
  },
  {
    name: "compatibility forms fold under NFKD",
    title: "ＡＢＣ１２３ ﬁle ①",
    want: "abc123-file-1",
  },
  {
    name: "letters without a decomposition are separators",
    title: "Smørrebrød Æble Łódź",
    want: "sm-rrebr-d-ble-odz",
  },
  {
    name: "separator runs, underscores, leading and trailing separators",
    title: "  --Snake_case__title!!--  ",
    want: "snake-case-title",
  },
  {
    name: "CJK-only title falls back on the session id",
    title: "日本語のタイトル",
    id: UUID,
    want: `exported-session-${UUID}`,
  },
  {
    name: "emoji-only title falls back on the session id",
    title: "🎉🚀✨",
    id: UUID,
    want: `exported-session-${UUID}`,
  },
  {
    name: "blank title falls back",
    title: " \t\n ",
    id: "abc",
    want: "exported-session-abc",
  },
  {
    name: "200-character title is cut to 128",
    title: "abcd ".repeat(40),
    want: "abcd-".repeat(25) + "abc",
  },
  {
    name: "a cut that leaves a trailing separator strips it",
    title: "a".repeat(127) + " tail",
    want: "a".repeat(127),
  },
  {
    name: "absent title, lowercase UUID id",
    title: undefined,
    id: UUID,
    want: `exported-session-${UUID}`,
  },
  {
    name: "absent title, uppercase id ⇒ hex of the first 24 code units",
    title: undefined,
    id: UPPER_UUID,
    want: `exported-session-id-${UPPER_UUID_HEX}`,
  },
  {
    name: "absent title, 200-character kebab id ⇒ hex",
    title: undefined,
    id: "a".repeat(200),
    want: "exported-session-id-" + "0061".repeat(24),
  },
  {
    name: "absent title, 111-character kebab id is kept",
    title: undefined,
    id: "b".repeat(111),
    want: "exported-session-" + "b".repeat(111),
  },
  {
    name: "absent title, 112-character kebab id ⇒ hex",
    title: undefined,
    id: "b".repeat(112),
    want: "exported-session-id-" + "0062".repeat(24),
  },
  {
    name: "absent title, short non-kebab id ⇒ hex of all its code units",
    title: undefined,
    id: "a_b",
    want: "exported-session-id-0061005f0062",
  },
  {
    name: "absent title, id with astral characters ⇒ hex of UTF-16 units",
    title: undefined,
    id: "🎉",
    want: "exported-session-id-d83cdf89",
  },
];

Deno.test("workflowIdFromTitle() follows the slug rules", async (t) => {
  for (const c of cases) {
    await t.step(c.name, () => {
      const got = workflowIdFromTitle(c.title, c.id ?? "unused-id");
      assert.equal(got, c.want);
      assert.match(got, KEBAB);
      assert.ok(got.length <= 128, `${got.length} > 128`);
    });
  }
});

Deno.test("workflowIdFromTitle() refuses an empty id when it needs it", () => {
  assert.throws(() => workflowIdFromTitle(undefined, ""), TypeError);
  assert.equal(workflowIdFromTitle("Title", ""), "title");
});
