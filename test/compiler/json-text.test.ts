// The cheap count that rules out repeated keys must never miss one; the scan names the first.
import { fc, test as property } from "@fast-check/vitest";
import { expect, test } from "vitest";
import { invalidJsonMessage, mayRepeatKeys, repeatedKey } from "../../compiler/_json-text.ts";

const check = (text: string) => mayRepeatKeys(text, JSON.parse(text)) ? repeatedKey(text) : undefined;

test("repeated keys are found at any depth, with colons and escapes anywhere in the record", () => {
  expect(check('{"score": 80, "score": 10}')).toEqual({ path: [], key: "score" });
  expect(check('{"funding":[{"id":"r1"},{"id":"r2","amount_usd":1,"amount_usd":1}]}')).toEqual({ path: ["funding", 1], key: "amount_usd" });
  // The repeated value holds colons, the kept one does not, and an escaped colon elsewhere.
  expect(check('{"a\\u003ab":"12:00","t":"2026-03-01T12:00:00Z","t":"x"}')).toEqual({ path: [], key: "t" });
  expect(check('{"k":{"x":1},"k":{"y":2}}')).toEqual({ path: [], key: "k" });
  expect(check('{"a\\"b":1,"a\\"b":2}')).toEqual({ path: [], key: 'a"b' });
});

test("records without repeated keys pass, whatever their strings hold", () => {
  for (const text of ['{"url":"https://x.io/a:b","at":"2026-03-01T12:00:00Z"}', '{"a":{"a":{"a":1}},"b":[{"a":1},{"a":2}]}', '{"s":"\\u003a\\\\u003a","k:":":"}', "[1,2]", '"text"', "{}"]) {
    expect(check(text), text).toBeUndefined();
  }
});

test("a trailing comma is named as one; other mistakes keep JSON.parse's words", () => {
  const message = (text: string) => {
    try {
      JSON.parse(text);
    } catch (error) {
      return invalidJsonMessage(text, error as Error);
    }
    return "valid";
  };
  expect(message('{"a":[1,2,],"b":"x,]"}')).toBe('invalid JSON: trailing comma at character 10: remove the comma before "]"');
  expect(message('{"a":1 ,\n}')).toBe('invalid JSON: trailing comma at character 8: remove the comma before "}"');
  expect(message('{"a":1,,}')).toMatch(/^invalid JSON: (?!trailing comma)/);
});

/** JSON text with `space` around every colon, and (when `repeat`) the first key of the first non-empty object written twice. */
function serialize(value: unknown, space: string, repeat: boolean): string {
  let repeated = !repeat;
  const write = (v: unknown): string => {
    if (v === null || typeof v !== "object") return JSON.stringify(v);
    if (Array.isArray(v)) return `[${v.map(write).join(",")}]`;
    const entries = Object.entries(v).map(([k, item]) => `${JSON.stringify(k)}${space}:${space}${write(item)}`);
    if (!repeated && entries.length > 0) {
      repeated = true;
      entries.push(`${JSON.stringify(Object.keys(v)[0])}${space}:${space}"12:00"`);
    }
    return `{${entries.join(",")}}`;
  };
  return write(value);
}

property.prop([fc.jsonValue(), fc.constantFrom("", " ", "\n", " \t\r "), fc.boolean()], { numRuns: 500 })(
  "the cheap count never rules out a repeated key, whatever the spacing and the strings hold",
  (value, space, repeat) => {
    const text = serialize(value, space, repeat);
    if (repeatedKey(text) !== undefined) expect(mayRepeatKeys(text, JSON.parse(text))).toBe(true);
  },
);
