// Token contracts (decision 33): where a token lives on each chain, as a CAIP-2 chain id
// (`namespace:reference`, e.g. `eip155:1`) and the address on that chain, checked by the rule of
// the chain's namespace. docs/source-format.md ("Token contracts") lists the rules.
import { z } from "zod";
import { characterMessage, shown, type CharacterRule } from "../value-messages.ts";

const CAIP2 = /^[-a-z0-9]{3,8}:[-_a-zA-Z0-9]{1,32}$/;
const EIP155_REFERENCE = /^[1-9][0-9]{0,31}$/;

const chainIdRule: CharacterRule = {
  expected: 'a CAIP-2 chain id "namespace:reference" such as "eip155:1" or "solana:5eykt4UsFv8P8NJdTREpY1vzqKqZKvdp"',
  allowed: /[-_a-zA-Z0-9:]/,
  min: 5,
  max: 41,
};

/** What is wrong with a chain id made of allowed characters: its structure. */
function chainIdStructure(value: string): string | undefined {
  const colon = value.indexOf(":");
  if (colon < 0) return `${shown(value)} has no ":" between its namespace and its reference`;
  const [namespace, reference] = [value.slice(0, colon), value.slice(colon + 1)];
  if (!/^[-a-z0-9]{3,8}$/.test(namespace)) return `${shown(value)} has the namespace ${shown(namespace)}: 3-8 characters of a-z, 0-9 and "-"`;
  if (!/^[-_a-zA-Z0-9]{1,32}$/.test(reference)) return `${shown(value)} has the reference ${shown(reference)}: 1-32 characters of A-Z, a-z, 0-9, "-" and "_"`;
  return undefined;
}

const SOLANA_MAINNET = "solana:5eykt4UsFv8P8NJdTREpY1vzqKqZKvdp";

/**
 * The numbers token lists give chains that have no EIP-155 id: 101-103 in the Solana token list,
 * 501000101 in Uniswap's, 1000000001 in CoW Protocol's; any other number is an EIP-155 chain id.
 */
export const LIST_CHAIN_NUMBERS: Readonly<Record<number, string>> = {
  101: SOLANA_MAINNET,
  102: "solana:4uhcVJyU9pJkvQyS88uRDiswHXSCkY3z",
  103: "solana:EtWTRABZaYq6iMfeYKouRu166VU2xqa1",
  501000101: SOLANA_MAINNET,
  1000000001: SOLANA_MAINNET,
};

/** A tokenlists.org `chainId` as a CAIP-2 chain id. */
export const caip2OfListChain = (chainId: number): string => LIST_CHAIN_NUMBERS[chainId] ?? `eip155:${chainId}`;

/** A chain id written as a tokenlists.org number: which CAIP-2 id that number means. */
function chainNumberMessage(input: number): string {
  const known = LIST_CHAIN_NUMBERS[input];
  const meant = known === undefined ? `for the EVM chain ${input}, write "eip155:${input}"` : `token lists use ${input} for ${known.split(":")[0]}: write "${known}"`;
  return `expected a CAIP-2 chain id such as "eip155:1", not the number ${input}: ${meant}`;
}

export const chainId = z
  .string({
    // A tokenlists.org `chainId` is a number: say how to write it.
    error: (issue) => (typeof issue.input === "number" && Number.isSafeInteger(issue.input) && issue.input > 0 ? chainNumberMessage(issue.input) : undefined),
  })
  .regex(CAIP2, { error: (issue) => characterMessage(issue.input, chainIdRule, { structure: chainIdStructure }) })
  .refine((value) => !value.startsWith("eip155:") || EIP155_REFERENCE.test(value.slice(7)), {
    error: (issue) => `expected an eip155 chain id whose reference is the decimal EIP-155 chain id, such as "eip155:137": ${shown(String(issue.input))}`,
  })
  .describe(
    "The chain, as a CAIP-2 chain id `namespace:reference`: `eip155:<chain id>` for EVM chains (`eip155:1`, `eip155:8453`), " +
      "`solana:5eykt4UsFv8P8NJdTREpY1vzqKqZKvdp` for Solana, or another CAIP-2 namespace. Unique within the token.",
  );

/** The address rule of each namespace the compiler knows; any other takes `otherAddress`. */
interface AddressRule extends CharacterRule {
  /** The whole rule, also for JSON Schema. */
  pattern: RegExp;
  /** Why a value of allowed characters and length still fails. */
  structure?: (value: string) => string | undefined;
}

const evmAddress: AddressRule = {
  expected: "an eip155 (EVM) address: 0x and 40 hex digits",
  pattern: /^0x[0-9a-fA-F]{40}$/,
  allowed: /[0-9a-fA-Fx]/,
  min: 42,
  max: 42,
  structure: (value) => (value.startsWith("0x") ? `${shown(value)} has "x" after its start` : `${shown(value)} does not start with "0x"`),
};

const BASE58 = /[1-9A-HJ-NP-Za-km-z]/;
const solanaAddress: AddressRule = {
  expected: "a solana address: 32-44 base58 characters (no 0, O, I or l)",
  pattern: /^[1-9A-HJ-NP-Za-km-z]{32,44}$/,
  allowed: BASE58,
  min: 32,
  max: 44,
};

const otherAddress: AddressRule = {
  expected: "an address of 1-128 visible ASCII characters, without spaces",
  pattern: /^[!-~]{1,128}$/,
  allowed: /[!-~]/,
  min: 1,
  max: 128,
};

export const addressRules: Readonly<Record<string, AddressRule>> = { eip155: evmAddress, solana: solanaAddress };

const namespaceOf = (chain: string): string => chain.slice(0, chain.indexOf(":"));

/**
 * An address as two contracts are compared (decision 33): an EVM address (`0x` and 40 hex digits)
 * whatever its case, anything else byte for byte. One token per contract is checked by it; search
 * compares the same way (snapshot/search-keys.ts: EVM chains' addresses folded, others raw).
 */
export function addressKey(address: string): string {
  return /^0x[0-9a-fA-F]{40}$/.test(address) ? address.toLowerCase() : address;
}

/** Why `address` is not an address of `chain`'s namespace; undefined when it is one. */
export function addressProblem(chain: string, address: string): string | undefined {
  const rule = addressRules[namespaceOf(chain)] ?? otherAddress;
  if (rule.pattern.test(address)) return undefined;
  return characterMessage(address, rule, { structure: rule.structure });
}

/** JSON Schema for an editor: each known namespace's address pattern, and the generic one for the rest. */
const addressSchemas = [
  ...Object.entries(addressRules).map(([namespace, rule]) => ({
    if: { required: ["chain_id"], properties: { chain_id: { type: "string", pattern: `^${namespace}:` } } },
    then: { properties: { address: { type: "string", pattern: rule.pattern.source } } },
  })),
  {
    if: { required: ["chain_id"], properties: { chain_id: { type: "string", not: { type: "string", pattern: `^(?:${Object.keys(addressRules).join("|")}):` } } } },
    then: { properties: { address: { type: "string", pattern: otherAddress.pattern.source } } },
  },
];

export const contractSource = z
  .strictObject({
    chain_id: chainId,
    address: z
      .string()
      .describe(
        "The token's address on that chain: on `eip155` chains `0x` and 40 hex digits (any case; searched case-insensitively), " +
          "on `solana` 32-44 base58 characters, on any other namespace 1-128 visible ASCII characters (searched byte for byte). Written, and searched (exact only).",
      ),
  })
  .superRefine((contract, context) => {
    const problem = addressProblem(contract.chain_id, contract.address);
    if (problem !== undefined) context.addIssue({ code: "custom", path: ["address"], message: problem });
  })
  .meta({ allOf: addressSchemas })
  .describe("Where the token lives on one chain: `{chain_id, address}`.");

export const contractsSource = z
  .array(contractSource)
  .max(100)
  .default([])
  .describe(
    "An array (at most 100) of the token's contracts, one per chain: the first 20 by chain id (`eip155` chains by number) are written and searchable by exact address. Default `[]`.",
  );
