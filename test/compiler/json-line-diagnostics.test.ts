// The cheap count that rules out repeated keys must never miss one; the scan names the first.
import { fc, test as property } from "@fast-check/vitest";
import { expect, test } from "vitest";
import { invalidJsonMessage, jsonSyntaxError, mayRepeatKeys, repeatedKey } from "../../compiler/json-line-diagnostics.ts";

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

const message = (text: string) => {
  try {
    JSON.parse(text);
  } catch {
    return invalidJsonMessage(text);
  }
  return "valid";
};

test("a trailing comma is named as one", () => {
  expect(message('{"a":[1,2,],"b":"x,]"}')).toBe('invalid JSON: trailing comma at character 10: remove the comma before "]"');
  expect(message('{"a":1 ,\n}')).toBe('invalid JSON: trailing comma at character 8: remove the comma before "}"');
  expect(message('{"a":1,,}')).toMatch(/^invalid JSON at character 8: (?!trailing comma)/);
});

test("every other mistake in our own words, at its character, the same on every runtime", () => {
  const table: Array<[string, string]> = [
    ['{"id":"a" "slug":"b"}', 'at character 11: expected "," or "}" after a property value, found "\\""'],
    ['{"id":"a",', "at character 11: expected a property name in double quotes, found the end of the line"],
    ['{"id":"a"', 'at character 10: expected "," or "}" after a property value, found the end of the line (1 bracket left open)'],
    ['{"a":[1,2', 'at character 10: expected "," or "]" after an array element, found the end of the line (2 brackets left open)'],
    ["{'id':'a'}", 'at character 2: expected a property name in double quotes or "}", found "\'"'],
    ['{id:"a"}', 'at character 2: expected a property name in double quotes or "}", found "i"'],
    ['{"id" "a"}', 'at character 7: expected ":" after the property name, found "\\""'],
    ['{"id":"a}', 'at character 7: a string that is never closed: add the closing "'],
    ['{"id":"a\\qb"}', "at character 9: invalid escape \\q in a string (valid: \\\" \\\\ \\/ \\b \\f \\n \\r \\t \\uXXXX)"],
    ['{"id":"\\u12g4"}', "at character 8: \\u must be followed by 4 hexadecimal digits"],
    ['{"id":"a\tb"}', "at character 9: the control character U+0009 inside a string: write it as an escape"],
    ['{"n":01}', "at character 7: a number may not have a leading zero"],
    ['{"n":-}', 'at character 6: invalid number: expected a digit after "-", found "}"'],
    ['{"n":.5}', 'at character 6: expected a value (an object, array, string, number, true, false or null), found "."'],
    ['{"ok":True}', 'at character 7: expected a value (an object, array, string, number, true, false or null), found "T"'],
    ['{"a":1}}', 'at character 8: unexpected "}" after the record: a line holds one JSON value'],
    ['{"a":1} {"b":2}', 'at character 9: unexpected "{" after the record: a line holds one JSON value'],
    ['{"a":', "at character 6: the line ends where a value is expected"],
  ];
  for (const [text, expected] of table) expect(message(text), text).toBe(`invalid JSON ${expected}`);
});

const jsonish = fc.string({ unit: fc.constantFrom(..."{}[]:,\"\\ 0-1.e+tnuflsa\t"), maxLength: 40 });
property.prop([fc.oneof(fc.json(), jsonish, fc.json().map((t) => t.slice(0, -1)))], { numRuns: 2000 })("the scanner accepts exactly what JSON.parse accepts", (text) => {
  let parses = true;
  try {
    JSON.parse(text);
  } catch {
    parses = false;
  }
  expect(jsonSyntaxError(text) === undefined, text).toBe(parses);
});

test("nesting of any depth is scanned without recursion", () => {
  const deep = "[".repeat(200_000) + "]".repeat(200_000);
  expect(jsonSyntaxError(deep)).toBeUndefined();
  expect(jsonSyntaxError(deep.slice(0, -1))?.message).toBe('expected "," or "]" after an array element, found the end of the line (1 bracket left open)');
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
