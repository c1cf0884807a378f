// Text folding (decision 29): how a search query and every searchable name, slug, symbol and id are
// compared. The compiler folds what it indexes and the server folds the query with this one
// function, so that both sides agree character for character. docs/api.md states the rule for
// consumers ("How text is compared").

/** Letters of the alphabets whose accents are dropped: é → e, ş → s, İ → i, ё → е, ά → α. */
const ACCENTED = /([\p{Script=Latin}\p{Script=Greek}\p{Script=Cyrillic}])\p{Mn}+/gu;
/** Typographic punctuation and its plain ASCII reading. */
const TYPOGRAPHIC: ReadonlyArray<[RegExp, string]> = [
  [/[\u2018\u2019\u201A\u201B\u2032\u02BC\u00B4\u0060]/g, "'"],
  [/[\u201C\u201D\u201E\u201F\u2033\u00AB\u00BB]/g, '"'],
  [/[\u2010\u2011\u2012\u2013\u2014\u2015\u2212]/g, "-"],
];
/** Word breaks: `.`, `-`, `_` and white space, in any number, become one space. */
const WORD_BREAKS = /[.\-_\s]+/g;
/** Controls never compare (curated text cannot hold them; a query may). */
const CONTROLS = /\p{Cc}/gu;
const PRINTABLE_ASCII = /^[\x20-\x7E]*$/;
/** Text that folding leaves as it is (ASCII lower case, digits, single spaces, no break characters). */
const ALREADY_FOLDED = /^[a-z0-9!-,/:-@[-^{-~]+(?: [a-z0-9!-,/:-@[-^{-~]+)*$/;

/**
 * Folds text for comparison: Unicode compatibility decomposition (NFKD), accents removed from
 * Latin, Greek and Cyrillic letters (other scripts, CJK and emoji keep their marks and are left as
 * they are), lower case, typographic quotes and dashes read as ASCII, and `.`, `-`, `_` and white
 * space read as one word break (a single space, none at either end).
 */
export function fold(text: string): string {
  if (ALREADY_FOLDED.test(text)) return text;
  // Printable ASCII has no compatibility forms, marks or typographic quotes but the backtick.
  if (PRINTABLE_ASCII.test(text)) return text.toLowerCase().replaceAll("`", "'").replace(WORD_BREAKS, " ").trim();
  let folded = text.normalize("NFKD").replace(ACCENTED, "$1").toLowerCase();
  // Lower-casing can compose nothing new, but a decomposed capital may lower-case to a letter with
  // a mark again (none in Unicode 16 does; the second pass costs nothing when there is none).
  if (/\p{Mn}/u.test(folded)) folded = folded.normalize("NFKD").replace(ACCENTED, "$1");
  for (const [pattern, ascii] of TYPOGRAPHIC) folded = folded.replace(pattern, ascii);
  return folded.replace(WORD_BREAKS, " ").replace(CONTROLS, "").trim();
}

/** The words of folded text: what a multi-word query matches, each word as a word prefix. */
export function foldedWords(folded: string): string[] {
  return folded === "" ? [] : [...new Set(folded.split(" "))];
}
