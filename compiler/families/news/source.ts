// News stories: only explicitly curated stories reach the snapshot.
import { z } from "zod";
import { dateTime, entityId, field, internalFields, prose, searchFields, snakeCase, text } from "../source-fields.ts";
import { shown, shownCharacter } from "../value-messages.ts";

export const storyIdPattern = /^story:[0-9a-f]{8}-[0-9a-f]{4}-[1-5][0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

const STORY_ID = "story:<uuid> (lower-case hex, RFC 4122 version 1-5)";
/** The template of a story id: `-` where a dash goes, `V` the version, `N` the variant, `h` any lower-case hex digit. */
const STORY_TEMPLATE = "story:hhhhhhhh-hhhh-Vhhh-Nhhh-hhhhhhhhhhhh";

/** The first character of a story id that breaks its template, or its length. */
function storyIdMessage(input: unknown): string {
  if (typeof input !== "string") return `expected ${STORY_ID}`;
  const problem = (): string => {
    if (!input.startsWith("story:")) return `${shown(input)} does not start with "story:"`;
    const characters = [...input];
    for (let i = 6; i < Math.min(characters.length, STORY_TEMPLATE.length); i++) {
      const char = characters[i]!;
      const slot = STORY_TEMPLATE[i]!;
      const ok = slot === "-" ? char === "-" : slot === "V" ? /[1-5]/.test(char) : slot === "N" ? /[89ab]/.test(char) : /[0-9a-f]/.test(char);
      if (ok) continue;
      const expected = slot === "-" ? `"-"` : slot === "V" ? "the version, 1-5" : slot === "N" ? "the variant, 8, 9, a or b" : "a lower-case hex digit";
      return `${shown(input)} has ${shownCharacter(char)} at character ${i + 1}, where ${expected} belongs`;
    }
    return `${shown(input)} has ${characters.length} characters, not ${STORY_TEMPLATE.length}`;
  };
  return `expected ${STORY_ID}: ${problem()}`;
}

/** Why a string is not a language tag: the language is 2-3 lower-case letters, the region 2 upper-case ones. */
function languageMessage(input: unknown): string {
  const expected = "expected a language tag such as en or pt-BR";
  if (typeof input !== "string") return expected;
  const [language = "", region, ...rest] = input.split("-");
  const at = (offset: number, part: string, letter: RegExp, what: string): string | undefined => {
    const index = [...part].findIndex((char) => !letter.test(char));
    return index < 0 ? undefined : `${shown(input)} has ${shownCharacter([...part][index]!)} at character ${offset + index + 1}: ${what}`;
  };
  const problem =
    at(0, language, /[a-z]/, "the language is 2-3 lower-case letters") ??
    (language.length < 2 || language.length > 3 ? `${shown(input)} has a language of ${language.length} letters: 2-3, such as en or fil` : undefined) ??
    (region === undefined ? undefined : at(language.length + 1, region, /[A-Z]/, "the region is 2 upper-case letters")) ??
    (region !== undefined && region.length !== 2 ? `${shown(input)} has a region of ${region.length} letters: 2, such as BR` : undefined) ??
    (rest.length > 0 ? `${shown(input)} has more than one "-"` : `${shown(input)} is not one`);
  return `${expected}: ${problem}`;
}

export const newsEntityRef = z
  .strictObject({
    type: z
      .enum(["project", "token", "person", "fund", "stock", "narrative"])
      .describe("The kind of entity: which file `id` names a record of (projects, tokens, people, funds, stocks or narratives)."),
    id: field(entityId, "The entity's id: must name a record of that file. Written with the entity's slug and name."),
  })
  .describe("An entity the story is about.");

export const newsSource = z
  .strictObject({
    id: z
      .string()
      .regex(storyIdPattern, { error: (issue) => storyIdMessage(issue.input) })
      .describe("The story's id, in `/v1/news/{id}`: `story:` and a lower-case RFC 4122 UUID of version 1-5, e.g. `story:0b5e6f1c-3d2a-4c8e-9f10-2a3b4c5d6e7f`. Unique in news.jsonl. Written."),
    title: field(text(500), "The headline. Written."),
    summary: field(prose(4000), "A summary of the story. Written."),
    published_at: field(dateTime, "When the story was published. Written."),
    sentiment: field(snakeCase(32), "The story's sentiment, e.g. `positive`. Written."),
    language: z
      .string()
      .regex(/^[a-z]{2,3}(?:-[A-Z]{2})?$/, { error: (issue) => languageMessage(issue.input) })
      .describe("The story's language tag: 2-3 lower-case letters, optionally `-` and 2 upper-case letters, e.g. `en` or `pt-BR`. Written."),
    /** Only stories a curator explicitly approved are served. */
    curated: z.boolean().describe("Only stories a curator approved (`true`) are served. Not written."),
    entities: z
      .array(newsEntityRef)
      .max(50)
      .default([])
      .describe("An array (at most 50) of the entities the story is about, each `{type: project|token|person|fund|stock|narrative, id}`; a story naming a stock is one of that stock's stories. Default `[]`."),
    hidden: z.boolean().default(false).describe("`true` keeps the story out of the snapshot. Default `false`."),
    deleted: z.boolean().default(false).describe("`true` marks the story deleted: it never reaches the snapshot. Default `false`."),
    ...searchFields,
    url: z.string().optional().describe("Accepted and never written: any string (not checked as a URL)."),
    publisher: z.unknown().optional().describe("Accepted and never written: any JSON value."),
    body: z.string().optional().describe("Accepted and never written: any string."),
    ...internalFields,
  })
  .describe("A news story (news.jsonl, one JSON object per line).");

export type NewsSource = z.input<typeof newsSource>;
