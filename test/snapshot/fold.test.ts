// fold (decision 29): the one function the compiler folds names with and the server folds a query with.
import { describe, expect, it } from "vitest";
import { fold, foldedWords } from "../../snapshot/fold.ts";

describe("fold", () => {
  it.each([
    // Accents, and the dotted capital I that toLowerCase alone turns into i + U+0307.
    ["Fenerbahçe Token", "fenerbahce token"],
    ["İstanbul Başakşehir Fan Token", "istanbul basaksehir fan token"],
    ["Clube Atlético Mineiro Fan Token", "clube atletico mineiro fan token"],
    ["Ærø Ñandú Øre", "ærø nandu øre"],
    ["Ёлка Ἀθῆναι", "елка αθηναι"],
    // Typographic punctuation read as ASCII.
    ["The People’s Coin", "the people's coin"],
    ["“Quoted” ‘single’", '"quoted" \'single\''],
    ["Alpha – Beta — Gamma", "alpha beta gamma"],
    // . - _ and white space are word breaks, in any number, never at either end.
    ["Volts.Finance", "volts finance"],
    ["yearn.finance", "yearn finance"],
    ["  ETH_12-Day..EMA\tSet  ", "eth 12 day ema set"],
    ["proj_aurora", "proj aurora"],
    // Compatibility forms: full-width letters, ligatures, superscripts, non-breaking spaces.
    ["ＵＳＤＴ", "usdt"],
    ["ﬁnance", "finance"],
    ["x²\u00A0y", "x2 y"],
    // CJK, emoji and other scripts are left as they are (their marks too).
    ["比特币", "比特币"],
    ["✨ Sparkle 🚀", "✨ sparkle 🚀"],
    ["हिन्दी", "हिन्दी"],
    ["Ethereumx·NET", "ethereumx·net"],
    // Already folded text is returned as is; controls never compare.
    ["shiba inu", "shiba inu"],
    ["a\u0000b\u0007c", "abc"],
    ["$AAPL", "$aapl"],
  ])("%j → %j", (text, folded) => {
    expect(fold(text)).toBe(folded);
    expect(fold(folded)).toBe(folded);
  });

  it("folds a query and the name it means alike, whatever the accents, case and punctuation", () => {
    for (const [query, name] of [
      ["fenerbahce token", "Fenerbahçe Token"],
      ["ISTANBUL BASAKSEHIR FAN TOKEN", "İstanbul Başakşehir Fan Token"],
      ["The People's Coin", "The People’s Coin"],
      ["volts finance", "Volts.Finance"],
    ]) expect(fold(query!)).toBe(fold(name!));
  });
});

describe("foldedWords", () => {
  it("splits folded text at its spaces, each word once", () => {
    expect(foldedWords("atletico mineiro")).toEqual(["atletico", "mineiro"]);
    expect(foldedWords("token token fan")).toEqual(["token", "fan"]);
    expect(foldedWords("")).toEqual([]);
  });
});
