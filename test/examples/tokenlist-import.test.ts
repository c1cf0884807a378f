// The worked import (examples/import/tokenlist.ts) on two real public token lists committed as
// fixtures (fixtures/import/*/README.md): its output compiles with the real compiler as it is, one
// asset on many chains is one token, a shared handle is one X account linked to its project, what
// the compiler would refuse is left out with the compiler's own message, and the served snapshot
// finds a token by the address of any of its contracts.
import { execFile } from "node:child_process";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { compileSnapshot } from "../../compiler/compile.ts";
import { importTokenLists, writeImport, type ImportResult, type TokenList } from "../../examples/import/tokenlist.ts";
import { FIXTURE_COMPILED_AT, FIXTURE_X_SECRET, FIXTURES_DIR } from "../_support/fixtures.ts";
import { openSnapshot, rows } from "../_support/compiled-tables.ts";
import { createTestService, type TestService } from "../_support/server.ts";
import { testTempDir } from "../_support/temp.ts";

const SOLANA_LIST = join(FIXTURES_DIR, "import/solana-token-list/solana.tokenlist.json");
const SUPERCHAIN_LIST = join(FIXTURES_DIR, "import/superchain-token-list/superchain.tokenlist.json");
const SOLANA = "solana:5eykt4UsFv8P8NJdTREpY1vzqKqZKvdp";
const read = (file: string) => ({ file: file.slice(FIXTURES_DIR.length), list: JSON.parse(readFileSync(file, "utf8")) as TokenList });

async function compiled(result: ImportResult): Promise<string> {
  const dir = testTempDir("cei-import-");
  writeImport(dir, result);
  const outFile = join(dir, "snapshot.db");
  const compile = await compileSnapshot({ sourceDir: dir, outFile, compiledAt: FIXTURE_COMPILED_AT, xSecret: FIXTURE_X_SECRET });
  if (!compile.ok) throw new Error(compile.problems.join("\n"));
  return outFile;
}

describe("the Solana token list (website and X handle extensions)", () => {
  const result = importTokenLists([read(SOLANA_LIST)], { sameToken: "none", chains: {} });
  let service: TestService;
  beforeAll(async () => {
    service = await createTestService({ snapshotFile: await compiled(result) });
  });
  afterAll(() => service.close());

  it("writes every entry the compiler accepts, and names each one it would refuse with the compiler's message", () => {
    expect(result.entries).toBe(41);
    expect(result.tokens).toHaveLength(39);
    expect(result.skipped).toEqual([
      'import/solana-token-list/solana.tokenlist.json: "pSOL/USDC" solana:5eykt4UsFv8P8NJdTREpY1vzqKqZKvdp:8kWk6CuCAfaxhWQZvQva6qkB1DkWNHq9LRKKN6n9joUG: ' +
        'symbol: expected a symbol of 1-20 characters [A-Za-z0-9.$-]: "pSOL/USDC" has "/" at character 5',
      'import/solana-token-list/solana.tokenlist.json: "SOCN/USDC" solana:5eykt4UsFv8P8NJdTREpY1vzqKqZKvdp:7YFfqZGTxkj3Zeq3Et23kMznCaEYZ1WBZDt6CVrxwfqd: ' +
        'symbol: expected a symbol of 1-20 characters [A-Za-z0-9.$-]: "SOCN/USDC" has "/" at character 5',
    ]);
  });

  it("names one project per website host, and one X account per handle, linked to the project that uses it", () => {
    const agEur = result.tokens.find((t) => t.symbol === "agEUR")!;
    expect(agEur).toMatchObject({
      id: `${SOLANA}:CbNYA9n3927uXUukee2Hf4tm3xxkffJPPZvGazc2EAH1`, slug: "ageur-wormhole", name: "agEUR (Wormhole)", project_id: "angle-money",
      contracts: [{ chain_id: SOLANA, address: "CbNYA9n3927uXUukee2Hf4tm3xxkffJPPZvGazc2EAH1" }],
    });
    expect(result.tokens.find((t) => t.symbol === "ANGLE")!.project_id).toBe("angle-money");
    expect(result.projects.find((p) => p.id === "angle-money")).toMatchObject({ slug: "angle-money", name: "Angle" });
    // orca.so and www.orca.so are one site; ten entries name @orca_so: one account.
    expect(result.tokens.filter((t) => t.project_id === "orca-so")).toHaveLength(8);
    expect(result.xAccounts.filter((x) => x.handle.toLowerCase() === "orca_so")).toEqual([{ handle: "orca_so", linked_entity: { type: "project", id: "orca-so" } }]);
    expect(result.xAccounts.filter((x) => x.handle === "AngleProtocol")).toEqual([{ handle: "AngleProtocol", linked_entity: { type: "project", id: "angle-money" } }]);
    // A handle whose entries name no website links to nothing.
    expect(result.xAccounts.find((x) => x.handle === "EABadtoken")).toEqual({ handle: "EABadtoken", linked_entity: null });
    expect(result.projects).toHaveLength(22);
    expect(result.xAccounts).toHaveLength(21);
  });

  it("keeps two contracts of one name on one chain as two tokens, and maps the list's chain numbers to CAIP-2", () => {
    const monke = result.tokens.filter((t) => t.symbol === "MONKE");
    expect(monke.map((t) => [t.slug, t.project_id])).toEqual([["monke-token", "monketoken-xyz"], ["monke-token-2", "monketoken-xyz"]]);
    expect(result.tokens.find((t) => t.symbol === "Aiko")!.contracts).toEqual([
      { chain_id: "solana:EtWTRABZaYq6iMfeYKouRu166VU2xqa1", address: expect.any(String) },
    ]);
  });

  it("compiles, publishes what it says, and the served snapshot finds a token by its contract address", async () => {
    const found = await service.call("POST", "/v1/search", { body: { q: "CbNYA9n3927uXUukee2Hf4tm3xxkffJPPZvGazc2EAH1" } });
    expect(found.body.data.results).toEqual([{ type: "token", id: `${SOLANA}:CbNYA9n3927uXUukee2Hf4tm3xxkffJPPZvGazc2EAH1`, symbol: "agEUR", name: "agEUR (Wormhole)" }]);
    const handle = await service.call("POST", "/v1/search", { body: { q: "@orca_so", types: ["x_account"] } });
    expect(handle.body.data.results).toHaveLength(1);
    const project = await service.call("GET", "/v1/projects/angle-money");
    expect(project.body.data).toMatchObject({ id: "angle-money", name: "Angle" });
  });
});

describe("the Superchain token list (one asset on many EVM chains)", () => {
  const lists = [read(SUPERCHAIN_LIST)];
  const result = importTokenLists(lists, { sameToken: { extension: "opTokenId" }, chains: {} });

  it("makes one token of the entries the list names as one asset, with one contract per chain, and ids from the first contract", async () => {
    expect(result).toMatchObject({ entries: 32, merged: 26, skipped: [] });
    expect(result.tokens.map((t) => [t.symbol, t.contracts!.length])).toEqual([["DAI", 6], ["LINK", 5], ["OP", 1], ["USDC", 8], ["WETH", 5], ["wstETH", 7]]);
    const usdc = result.tokens.find((t) => t.symbol === "USDC")!;
    expect(usdc.id).toBe("eip155:1:0xa0b86991c6218b36c1d19d4a2e9eb0ce3606eb48");
    const db = openSnapshot(await compiled(result));
    try {
      // Written by chain: eip155 chains by number.
      expect(rows(db, "SELECT chain_id FROM token_contracts WHERE token_id = ? ORDER BY position", usdc.id).map((r) => (r as { chain_id: string }).chain_id))
        .toEqual(["eip155:1", "eip155:10", "eip155:130", "eip155:8453", "eip155:34443", "eip155:84532", "eip155:11155111", "eip155:11155420"]);
    } finally {
      db.close();
    }
  });

  it("without the rule, each entry is its own token, and importing again gives the same records", () => {
    expect(importTokenLists(lists, { sameToken: "none", chains: {} }).tokens).toHaveLength(32);
    expect(importTokenLists(lists, { sameToken: { extension: "opTokenId" }, chains: {} })).toEqual(result);
  });

  it("runs from the command line, writing a folder that compiles, and says what it did", async () => {
    const out = testTempDir("cei-import-cli-");
    const run = await promisify(execFile)(process.execPath, ["--import", "tsx", "examples/import/tokenlist.ts", SUPERCHAIN_LIST, "--out", out, "--same-token", "extension:opTokenId"]);
    expect(run.stderr).toBe(`32 entries: 6 tokens (26 contracts merged into another entry's token), 0 projects, 0 X accounts; 0 left out; written to ${out}\n`);
    expect(readFileSync(join(out, "tokens.jsonl"), "utf8")).toBe(result.tokens.map((t) => JSON.stringify(t) + "\n").join(""));
    expect(readFileSync(join(out, "events.jsonl"), "utf8")).toBe("");
  });
});
