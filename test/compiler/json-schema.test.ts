// The JSON Schema files `cei schema` writes, run through ajv (draft 2020-12, formats asserted) as
// an editor would: they accept every record of the valid fixtures and of the sample, and refuse
// each single-record mistake the compiler refuses, at the same field.
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { basename, join } from "node:path";
import { Ajv2020, type ErrorObject, type ValidateFunction } from "ajv/dist/2020.js";
import addFormatsModule from "ajv-formats";
import fc from "fast-check";
import { beforeAll, describe, expect, it } from "vitest";
import { families } from "../../compiler/families/index.ts";
import { text, url } from "../../compiler/families/source-fields.ts";
import { schemaFileName, schemaId, writeFamilyJsonSchemas } from "../../compiler/json-schema.ts";
import { validateBatch } from "../../compiler/validate-lines.ts";
import { FIXTURE_X_SECRET, FIXTURES_DIR, fixtureDir } from "../_support/fixtures.ts";
import { AS_OF, generateSample } from "../_support/sample.ts";
import { testTempDir } from "../_support/temp.ts";

type Json = Record<string, unknown>;
const addFormats = addFormatsModule as unknown as (ajv: Ajv2020) => Ajv2020;

let files: Map<string, Json>;
let validators: Map<string, ValidateFunction>;

beforeAll(() => {
  const written = writeFamilyJsonSchemas(testTempDir("cei-json-schema-"));
  files = new Map(written.map((path) => [basename(path), JSON.parse(readFileSync(path, "utf8")) as Json]));
  const ajv = addFormats(new Ajv2020({ strict: true, allErrors: true }));
  validators = new Map(families.map(({ family, file }) => [family, ajv.compile(files.get(schemaFileName(file))!)]));
});

/** ajv's errors as the compiler's paths: `funding[0].amount_usd`, a missing field at its own path, `(root)` for the record. */
function ajvPaths(errors: readonly ErrorObject[]): string[] {
  return errors.map((error) => {
    const keys = error.instancePath.split("/").slice(1).map((key) => key.replaceAll("~1", "/").replaceAll("~0", "~"));
    if (error.keyword === "required") keys.push(String(error.params.missingProperty));
    const path = keys.map((key, i) => (/^\d+$/.test(key) ? `[${key}]` : i === 0 ? key : `.${key}`)).join("");
    return path === "" ? "(root)" : path;
  });
}

/** What the compiler says about one line, and what the family's schema file says (undefined: accepted). */
function judge(family: string, record: unknown) {
  const compiler = validateBatch({ family, firstLine: 1, lines: [JSON.stringify(record)] }, FIXTURE_X_SECRET).problems;
  const validate = validators.get(family)!;
  const accepted = validate(record);
  return { compiler: compiler.map((p) => p.path), ajv: accepted ? undefined : ajvPaths(validate.errors ?? []) };
}

/** The non-blank lines of a fixture file; none when the fixture folder has no such file. */
const fixtureLines = (dir: string, file: string): string[] =>
  existsSync(join(dir, file)) ? readFileSync(join(dir, file), "utf8").split("\n").filter((line) => line.trim() !== "") : [];

describe("cei schema files", () => {
  it("carry their own $id, and a description on every field of every family, at every depth", () => {
    const undescribed: string[] = [];
    const walk = (schema: Json, path: string): void => {
      for (const branch of [...((schema.anyOf ?? []) as Json[]), ...((schema.oneOf ?? []) as Json[])]) walk(branch, path);
      if (schema.items !== undefined) walk(schema.items as Json, `${path}[]`);
      for (const [name, property] of Object.entries((schema.properties ?? {}) as Record<string, Json>)) {
        if (typeof property.description !== "string" || property.description.length < 10) undescribed.push(`${path}.${name}`);
        walk(property, `${path}.${name}`);
      }
    };
    for (const { family, file } of families) {
      const schema = files.get(schemaFileName(file))!;
      expect(schema.$id).toBe(schemaId(family));
      expect(schema.$schema).toBe("https://json-schema.org/draft/2020-12/schema");
      walk(schema, family);
    }
    expect(undescribed).toEqual([]);
    expect(new Set([...files.values()].map((schema) => schema.$id)).size).toBe(families.length);
  });

  it.each(["valid", "valid-changed"])("accept every record of fixtures/%s", (name) => {
    let records = 0;
    for (const { family, file } of families) {
      for (const line of fixtureLines(fixtureDir(name), file)) {
        expect(judge(family, JSON.parse(line)), `${name}/${file}: ${line.slice(0, 80)}`).toEqual({ compiler: [], ajv: undefined });
        records++;
      }
    }
    expect(records).toBeGreaterThan(20);
  });

  it("accept every record of the bundled sample (`cei sample`)", async () => {
    const { dir } = await generateSample(AS_OF);
    const refused: string[] = [];
    for (const { family, file } of families) {
      const validate = validators.get(family)!;
      fixtureLines(dir, file).forEach((line, i) => {
        if (!validate(JSON.parse(line))) refused.push(`${file}:${i + 1}: ${ajvPaths(validate.errors ?? []).join(", ")}`);
      });
    }
    expect(refused).toEqual([]);
  });

  it("agree with the compiler on every line of the error fixtures: refused by one exactly when refused by the other", () => {
    const disagreements: string[] = [];
    let refused = 0;
    for (const dir of readdirSync(FIXTURES_DIR).filter((name) => name.startsWith("errors-"))) {
      for (const { family, file } of families) {
        for (const line of fixtureLines(fixtureDir(dir), file)) {
          let record: unknown;
          try {
            record = JSON.parse(line);
          } catch {
            continue; // not JSON: no schema applies
          }
          const { compiler, ajv } = judge(family, record);
          if ((compiler.length > 0) !== (ajv !== undefined)) disagreements.push(`${dir}/${file}: compiler ${compiler.join(", ") || "accepts"}, ajv ${ajv?.join(", ") ?? "accepts"}`);
          if (ajv !== undefined) refused++;
        }
      }
    }
    expect(disagreements).toEqual([]);
    expect(refused).toBeGreaterThan(5);
  });
});

/** The first record of fixtures/valid/<file>, with the value at `path` replaced (or removed, for undefined). */
function mistake(file: string, path: ReadonlyArray<string | number>, value: unknown): unknown {
  const record = JSON.parse(fixtureLines(fixtureDir("valid"), file)[0]!) as Json;
  let parent = record as Record<string | number, unknown>;
  for (const key of path.slice(0, -1)) parent = parent[key] as Record<string | number, unknown>;
  const last = path.at(-1)!;
  if (value === undefined) delete parent[last];
  else parent[last] = value;
  return record;
}

const mistakes: Array<{ rule: string; family: string; record: unknown; path: string }> = [
  { rule: "an ftp:// URL", family: "events", record: mistake("events.jsonl", ["website_url"], "ftp://milehigh.example.com/"), path: "website_url" },
  { rule: "a javascript: URL", family: "events", record: mistake("events.jsonl", ["website_url"], "javascript:alert(1)"), path: "website_url" },
  { rule: "a URL without a host", family: "events", record: mistake("events.jsonl", ["website_url"], "https://"), path: "website_url" },
  { rule: "a URL with a port over 65535", family: "events", record: mistake("events.jsonl", ["website_url"], "https://example.com:70000/"), path: "website_url" },
  { rule: "a URL whose host is not an IPv4 address", family: "events", record: mistake("events.jsonl", ["website_url"], "https://10.0.0.256/"), path: "website_url" },
  { rule: "a nested ftp:// URL", family: "projects", record: mistake("projects.jsonl", ["features", 0, "docs_url"], "ftp://docs.example.com/"), path: "features[0].docs_url" },
  { rule: "a lower-case ticker", family: "stocks", record: mistake("stocks.jsonl", ["ticker"], "orbt"), path: "ticker" },
  { rule: "a symbol with a space", family: "tokens", record: mistake("tokens.jsonl", ["symbol"], "B TC"), path: "symbol" },
  { rule: "an X handle over 15 characters", family: "x_accounts", record: mistake("x_accounts.jsonl", ["handle"], "@a_handle_too_long_for_x"), path: "handle" },
  { rule: "a trending X handle with a dash", family: "trending", record: { entity: { type: "x_account", handle: "not-a-handle" }, day: "live", observed_at: "2026-03-01T11:00:00Z", score: 1 }, path: "entity.handle" },
  { rule: "a language name instead of a tag", family: "news", record: mistake("news.jsonl", ["language"], "english"), path: "language" },
  { rule: "a story id that is not a UUID", family: "news", record: mistake("news.jsonl", ["id"], "story:42"), path: "id" },
  { rule: "the reserved project slug", family: "projects", record: mistake("projects.jsonl", ["slug"], "trending"), path: "slug" },
  { rule: "a slug starting with a dash", family: "funds", record: mistake("funds.jsonl", ["slug"], "-atlas"), path: "slug" },
  { rule: "a missing required field", family: "stocks", record: mistake("stocks.jsonl", ["crypto_angle"], undefined), path: "crypto_angle" },
  { rule: "a missing nested required field", family: "projects", record: mistake("projects.jsonl", ["funding", 0, "verified"], undefined), path: "funding[0].verified" },
  { rule: "a bad crypto_angle", family: "stocks", record: mistake("stocks.jsonl", ["crypto_angle"], "bitcoin"), path: "crypto_angle" },
  { rule: "media as an object", family: "projects", record: mistake("projects.jsonl", ["media"], { logo: "x.png" }), path: "media" },
  { rule: "links as a string", family: "projects", record: mistake("projects.jsonl", ["links"], "https://aurora.example"), path: "links" },
  { rule: "heat as a string", family: "trending", record: { ...(JSON.parse(fixtureLines(fixtureDir("valid"), "trending.jsonl")[0]!) as Json), heat: "hot" }, path: "heat" },
  { rule: "a date that does not exist", family: "events", record: mistake("events.jsonl", ["start_date"], "2026-02-30"), path: "start_date" },
  { rule: "a date-time without a zone", family: "news", record: mistake("news.jsonl", ["published_at"], "2026-02-28T15:30:00"), path: "published_at" },
  { rule: "a control character in a name", family: "funds", record: mistake("funds.jsonl", ["name"], "Atlas\u0007Ventures"), path: "name" },
  { rule: "a bidi override in a name", family: "funds", record: mistake("funds.jsonl", ["name"], "Atlas \u202eVentures"), path: "name" },
  { rule: "a line feed in a name", family: "people", record: mistake("people.jsonl", ["full_name"], "Alice\nNakamoto"), path: "full_name" },
  { rule: "an unknown field", family: "funds", record: mistake("funds.jsonl", ["bogus"], 1), path: "(root)" },
  { rule: "a negative amount", family: "projects", record: mistake("projects.jsonl", ["funding", 0, "amount_usd"], -1), path: "funding[0].amount_usd" },
  { rule: "a fractional rank", family: "tokens", record: mistake("tokens.jsonl", ["market", "rank"], 1.5), path: "market.rank" },
  { rule: "an enum value the API does not list", family: "funds", record: mistake("funds.jsonl", ["fund_type"], "hedge"), path: "fund_type" },
  { rule: "a short EVM contract address", family: "tokens", record: mistake("tokens.jsonl", ["contracts"], [{ chain_id: "eip155:1", address: "0x12ab" }]), path: "contracts[0].address" },
  { rule: "a Solana address with a 0", family: "tokens", record: mistake("tokens.jsonl", ["contracts"], [{ chain_id: "solana:5eykt4UsFv8P8NJdTREpY1vzqKqZKvdp", address: "EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt0v" }]), path: "contracts[0].address" },
  { rule: "an address with a space on another chain", family: "tokens", record: mistake("tokens.jsonl", ["contracts"], [{ chain_id: "tron:mainnet", address: "T R" }]), path: "contracts[0].address" },
  { rule: "a chain id given as a number", family: "tokens", record: mistake("tokens.jsonl", ["contracts"], [{ chain_id: 1, address: "0xA0b86991c6218b36c1d19D4a2e9Eb0cE3606eB48" }]), path: "contracts[0].chain_id" },
  { rule: "a snake_case value with a dash", family: "projects", record: mistake("projects.jsonl", ["funding", 0, "round_type"], "series-a"), path: "funding[0].round_type" },
];

describe("a single-record mistake", () => {
  it.each(mistakes)("$rule: refused by the compiler and by the schema file, at $path", ({ family, record, path }) => {
    const { compiler, ajv } = judge(family, record);
    expect(compiler).toContain(path);
    expect(ajv).toContain(path);
  });
});

describe("the URL and curated-text patterns are never looser than the compiler", () => {
  const ajv = addFormats(new Ajv2020({ strict: true }));
  const property = (family: string, name: string) => ((validators.get(family)!.schema as Json).properties as Record<string, Json>)[name]!;

  // Not generated: a host label in punycode that does not decode (`xn--.com`), which only the
  // compiler refuses (docs/source-format.md says so).
  it("a URL the schema accepts, the compiler accepts", () => {
    const acceptsUrl = ajv.compile({ anyOf: [property("events", "website_url")] });
    const port = fc.constantFrom("", ":", ":0", ":443", ":65535", ":65536", ":99999", ":00080");
    const numericHost = fc
      .array(fc.oneof(fc.nat(300).map(String), fc.constantFrom("0x1f", "0X", "010", "a", "b1", "1b", "")), { minLength: 1, maxLength: 5 })
      .map((labels) => labels.join("."));
    const urlLike = fc.oneof(
      fc.webUrl({ withQueryParameters: true, withFragments: true }),
      fc.tuple(fc.constantFrom("http://", "https://", "HTTPS://", "http:/", "https:", "ftp://", "javascript:", "data:", ""), fc.string()).map(([scheme, rest]) => scheme + rest),
      fc.tuple(fc.constantFrom("https://"), fc.oneof(fc.domain(), numericHost), port, fc.webPath()).map((parts) => parts.join("")),
    );
    fc.assert(fc.property(urlLike, (candidate) => !acceptsUrl(candidate) || url.safeParse(candidate).success), { numRuns: 1000, seed: 20261122 });
  });

  it("a name the schema accepts, the compiler accepts", () => {
    const acceptsName = ajv.compile(property("funds", "name"));
    const name = text(200);
    fc.assert(fc.property(fc.string({ unit: "binary", maxLength: 40 }), (candidate) => !acceptsName(candidate) || name.safeParse(candidate).success), { numRuns: 2000, seed: 20261122 });
  });
});
