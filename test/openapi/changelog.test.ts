// The contract cannot change silently: CHANGELOG.md records the sha256 of every published
// docs/openapi.json, so the current document's hash must appear in it (see the file's first lines).
import { createHash } from "node:crypto";
import { readFileSync } from "node:fs";
import { expect, it } from "vitest";
import { API_VERSION } from "../../server/openapi/document.ts";

const document = readFileSync(new URL("../../docs/openapi.json", import.meta.url));
const changelog = readFileSync(new URL("../../CHANGELOG.md", import.meta.url), "utf8");

it("CHANGELOG.md has an entry for the current docs/openapi.json (its sha256)", () => {
  const hash = createHash("sha256").update(document).digest("hex");
  expect(changelog, `add an entry (or update the unreleased one) with "openapi.json sha256: \`${hash}\`"`).toContain(`openapi.json sha256: \`${hash}\``);
});

it("the entry that holds the current hash is the document's version", () => {
  const hash = createHash("sha256").update(document).digest("hex");
  const entries = changelog.split(/^## /m).slice(1);
  const current = entries.find((entry) => entry.includes(hash));
  expect(current?.split(/[\s(]/, 1)[0]).toBe(API_VERSION);
});
