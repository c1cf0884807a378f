// Token contracts (decision 33): validated by the chain's namespace, one per chain within a token
// and one token per contract, written (at most 20 per token, ordered by chain) with exact-only
// search keys, and nothing of a hidden token.
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { compileSnapshot } from "../../compiler/compile.ts";
import { FIXTURE_COMPILED_AT } from "../_support/fixtures.ts";
import { manifestOf, openSnapshot, rows } from "../_support/compiled-tables.ts";
import { writeSources } from "../_support/sources.ts";
import { testTempDir } from "../_support/temp.ts";

const evm = (n: number): string => `0x${n.toString(16).padStart(40, "0")}`;
const token = (id: string, contracts: unknown, extra: Record<string, unknown> = {}) =>
  JSON.stringify({ id, slug: id.replaceAll("_", "-"), symbol: id.replace("tok_", "").toUpperCase(), name: id, contracts, ...extra });

async function compile(lines: string[]) {
  const dir = testTempDir("cei-contracts-");
  writeSources(dir, { "tokens.jsonl": lines.join("\n") + "\n" });
  const outFile = join(dir, "snapshot.db");
  const result = await compileSnapshot({ sourceDir: dir, outFile, compiledAt: FIXTURE_COMPILED_AT });
  return { result, outFile };
}

describe("token contracts", () => {
  it("are written ordered by chain (eip155 by number), at most 20 per token, with exact-only search keys; a hidden token's are not", async () => {
    const many = Array.from({ length: 23 }, (_, i) => ({ chain_id: `eip155:${23 - i}`, address: evm(i + 1) }));
    const { result, outFile } = await compile([
      token("tok_usdc", [
        { chain_id: "solana:5eykt4UsFv8P8NJdTREpY1vzqKqZKvdp", address: "EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v" },
        { chain_id: "eip155:137", address: "0x3c499c542cEF5E3811e1192ce70d8cC03d5c3359" },
        { chain_id: "eip155:56", address: "0x8AC76a51cc950d9822D68b83fE1Ad97B32Cd580d" },
        { chain_id: "near:mainnet", address: "17208628f84f5d6ad33f0da3bbbeb27ffcb398eac501a31bd6ad2011e36133a1" },
      ]),
      token("tok_many", many),
      token("tok_gone", [{ chain_id: "eip155:1", address: evm(999) }], { hidden: true }),
    ]);
    expect(result.ok, result.ok ? "" : result.problems.join("\n")).toBe(true);
    const db = openSnapshot(outFile);
    try {
      expect(rows(db, "SELECT chain_id, address FROM token_contracts WHERE token_id = 'tok_usdc' ORDER BY position")).toEqual([
        { chain_id: "eip155:56", address: "0x8AC76a51cc950d9822D68b83fE1Ad97B32Cd580d" },
        { chain_id: "eip155:137", address: "0x3c499c542cEF5E3811e1192ce70d8cC03d5c3359" },
        { chain_id: "near:mainnet", address: "17208628f84f5d6ad33f0da3bbbeb27ffcb398eac501a31bd6ad2011e36133a1" },
        { chain_id: "solana:5eykt4UsFv8P8NJdTREpY1vzqKqZKvdp", address: "EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v" },
      ]);
      const kept = rows(db, "SELECT chain_id FROM token_contracts WHERE token_id = 'tok_many' ORDER BY position").map((r) => (r as { chain_id: string }).chain_id);
      expect(kept).toEqual(Array.from({ length: 20 }, (_, i) => `eip155:${i + 1}`));
      expect((manifestOf(db).excluded as Record<string, Record<string, number>>).tokens!.over_list_cap).toBe(3);
      expect(rows(db, "SELECT count(*) AS n FROM token_contracts WHERE token_id = 'tok_gone'")).toEqual([{ n: 0 }]);
      // Exact-only keys: EVM addresses folded (lower case), any other raw (stored after U+0001).
      expect(rows(db, "SELECT key FROM search_exact WHERE entity_id = 'tok_usdc' AND (key LIKE '0x%' OR substr(key, 1, 1) = char(1)) ORDER BY key")).toEqual([
        { key: "\u000117208628f84f5d6ad33f0da3bbbeb27ffcb398eac501a31bd6ad2011e36133a1" },
        { key: "\u0001EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v" },
        { key: "0x3c499c542cef5e3811e1192ce70d8cc03d5c3359" },
        { key: "0x8ac76a51cc950d9822d68b83fe1ad97b32cd580d" },
      ]);
      expect(rows(db, "SELECT count(*) AS n FROM search_exact WHERE entity_id = 'tok_many' AND key LIKE '0x%'")).toEqual([{ n: 20 }]);
      // Never a word, prefix or substring key.
      expect(rows(db, "SELECT count(*) AS n FROM search_entities WHERE name LIKE '%0x%' OR slug LIKE '%0x%'")).toEqual([{ n: 0 }]);
    } finally {
      db.close();
    }
  });

  it("refuse a bad chain id or address, a second contract on one chain, and a contract of two tokens, naming the value", async () => {
    const { result } = await compile([
      token("tok_a", [
        { chain_id: 1, address: evm(1) },
        { chain_id: "eip155:10", address: "0x12ab" },
        { chain_id: "solana:5eykt4UsFv8P8NJdTREpY1vzqKqZKvdp", address: "EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt0v" },
      ]),
      token("tok_b", [{ chain_id: "eip155:1", address: evm(7) }, { chain_id: "eip155:1", address: evm(8) }]),
      token("tok_c", [{ chain_id: "eip155:8453", address: "0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913" }]),
      token("tok_d", [{ chain_id: "eip155:8453", address: "0x833589FCD6EDB6E08F4C7C32D4F71B54BDA02913" }]),
      token("tok_e", [{ chain_id: "ethereum", address: evm(3) }]),
    ]);
    expect(result.ok).toBe(false);
    expect(result.ok ? [] : result.problems).toEqual([
      'tokens.jsonl:1: contracts[0].chain_id: expected a CAIP-2 chain id such as "eip155:1", not the number 1: for the EVM chain 1, write "eip155:1"',
      'tokens.jsonl:1: contracts[1].address: expected an eip155 (EVM) address: 0x and 40 hex digits: "0x12ab" has 6 characters, fewer than 42',
      'tokens.jsonl:1: contracts[2].address: expected a solana address: 32-44 base58 characters (no 0, O, I or l): "EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt0v" has "0" at character 43',
      'tokens.jsonl:2: contracts[1].chain_id: duplicate chain_id "eip155:1" (first at contracts[0]): a token has one contract per chain',
      'tokens.jsonl:4: contracts[0].address: duplicate contract "0x833589FCD6EDB6E08F4C7C32D4F71B54BDA02913" on eip155:8453 (first on line 3, at contracts[0]): a contract belongs to one token',
      'tokens.jsonl:5: contracts[0].chain_id: expected a CAIP-2 chain id "namespace:reference" such as "eip155:1" or "solana:5eykt4UsFv8P8NJdTREpY1vzqKqZKvdp": "ethereum" has no ":" between its namespace and its reference',
    ]);
  });
});
