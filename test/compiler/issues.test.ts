import { z } from "zod";
import { expect, test } from "vitest";
import { formatIssues, formatPath } from "../../compiler/issues.ts";

test("formatPath", () => {
  expect(formatPath([])).toBe("(root)");
  expect(formatPath(["funding", 2, "amount_usd"])).toBe("funding[2].amount_usd");
  expect(formatPath(["provider_ids", "a-b"])).toBe('provider_ids["a-b"]');
});

test("formatIssues gives short messages", () => {
  const schema = z.strictObject({
    n: z.number().min(0),
    m: z.number().max(10),
    s: z.string(),
    list: z.array(z.string()).max(1),
    kind: z.enum(["vc", "angel"]),
    flag: z.boolean(),
  });
  const input = { n: -1, m: 11, list: ["a", "b"], kind: "x", flag: 1, extra: true };
  const result = schema.safeParse(input);
  expect(result.success).toBe(false);
  expect(formatIssues(result.error!.issues, input)).toEqual([
    { path: "n", message: "expected a number >= 0, not -1" },
    { path: "m", message: "expected a number <= 10, not 11" },
    { path: "s", message: "required" },
    { path: "list", message: "expected at most 1 item, not 2" },
    { path: "kind", message: 'expected one of: vc, angel; not "x"' },
    { path: "flag", message: "expected a boolean, not the number 1" },
    { path: "(root)", message: 'unknown field "extra"' },
  ]);
});
