// Every line of every file the sample writes parses with its family's source schema.
import { describe, expect, it } from "vitest";
import { families } from "../../compiler/families/index.ts";
import { AS_OF, OTHER_AS_OFS, fileNames, generateSample, readLines } from "../_support/sample.ts";

describe("writeSample output parses with the family schemas", () => {
  it.each([
    { asOf: AS_OF, scale: 1 },
    { asOf: OTHER_AS_OFS[0]!, scale: 1 },
    { asOf: OTHER_AS_OFS[1]!, scale: 3 },
  ])("as of $asOf, scale $scale: no problems", async ({ asOf, scale }) => {
    const { dir, files } = await generateSample(asOf, scale);
    expect(fileNames(dir)).toEqual(families.map((f) => f.file).sort());
    const problems: string[] = [];
    for (const { file, schema } of families) {
      const lines = readLines(dir, file);
      expect(lines.length).toBe(files[file]);
      lines.forEach((line, i) => {
        const parsed = schema.safeParse(JSON.parse(line));
        if (!parsed.success) {
          for (const issue of parsed.error.issues) problems.push(`${file}:${i + 1}: ${issue.path.join(".") || "(root)"}: ${issue.message}`);
        }
      });
    }
    expect(problems).toEqual([]);
  });

  it("writes one JSON object per line, newline-terminated, with no blank lines", async () => {
    const { dir } = await generateSample(AS_OF);
    for (const { file } of families) {
      for (const line of readLines(dir, file)) {
        expect(line.startsWith("{") && line.endsWith("}")).toBe(true);
      }
    }
  });
});
