// `cei keys ...`: operator commands on the meter file. Problems exit 1 with one line on stderr.
import type { Command } from "commander";
import { openMeterDatabase, type MeterDatabase } from "../server/meter/_database.ts";
import {
  KeyManagementError, createKey, creditKey, disableKey, enableKey, listKeys, parseCredits, parseScopes,
  parseTier, revokeKey, setKeyScopes, setKeyTier, type KeySummary,
} from "../server/meter/keys.ts";
import { scopes as allScopes, tiers } from "../server/policy.ts";

interface MeterOption { meter: string; json?: boolean }

export function registerKeys(program: Command): void {
  const keys = program
    .command("keys")
    .description("Manage API keys in the meter file: issue, list, disable/enable, revoke, top up, change tier or scopes.");

  keys
    .command("create")
    .description("Issue a key. The secret is printed once and stored only as its sha256.")
    .requiredOption("--meter <file>", "meter database file (created if missing)")
    .requiredOption("--tier <tier>", `rate-limit tier: ${tiers.join(", ")}`)
    .requiredOption("--credits <n>", "opening balance in credits (whole number >= 0)")
    .option("--scopes <a,b,...>", `comma-separated scopes (default: all of ${allScopes.join(", ")})`)
    .option("--name <label>", "a label to recognise the key by")
    .option("--json", "print one JSON object (id, key, prefix, name, tier, scopes, credits, ...)")
    .action((options: MeterOption & { tier: string; credits: string; scopes?: string; name?: string }) =>
      run("create", () => {
        const tier = parseTier(options.tier);
        const credits = parseCredits(options.credits, 0);
        const scopes = options.scopes === undefined ? undefined : parseScopes(options.scopes);
        const created = withMeter(options.meter, false, (db) =>
          createKey(db, { tier, credits, scopes, name: options.name }, Date.now()));
        if (options.json) return print(created);
        console.log(`created ${created.id} (${describe(created)})`);
        console.log(`key: ${created.key}`);
        console.log("This secret is shown only now; it cannot be recovered. Send it as: Authorization: Bearer <key>");
      }));

  keys
    .command("list")
    .description("List keys with state, tier, credits and scopes (never secrets).")
    .requiredOption("--meter <file>", "meter database file")
    .option("--json", "print a JSON array")
    .action((options: MeterOption) =>
      run("list", () => {
        const all = withMeter(options.meter, true, listKeys);
        if (options.json) return print(all);
        if (all.length === 0) return console.log("no keys");
        for (const key of all) console.log(`${key.id}  ${key.prefix}…  ${describe(key)}`);
      }));

  registerChange(keys, "disable", "Disable a key (403 until enabled again).", [], (db, id) => disableKey(db, id, Date.now()));
  registerChange(keys, "enable", "Enable a disabled key (a revoked key stays revoked).", [], (db, id) => enableKey(db, id, Date.now()));
  registerChange(keys, "revoke", "Revoke a key. Final: it can never be enabled again.", [], (db, id) => revokeKey(db, id, Date.now()));
  registerChange(keys, "credit", "Top up a key's balance (recorded in the ledger).", [["<amount>", "credits to add (whole number >= 1)"]], (db, id, amount) =>
    creditKey(db, id, parseCredits(amount!, 1), Date.now()));
  registerChange(keys, "tier", `Change a key's rate-limit tier (${tiers.join(", ")}).`, [["<tier>", tiers.join(", ")]], (db, id, tier) =>
    setKeyTier(db, id, parseTier(tier!), Date.now()));
  registerChange(keys, "scopes", `Replace a key's scopes (comma-separated: ${allScopes.join(", ")}).`, [["<scopes>", "comma-separated, e.g. search,projects"]], (db, id, list) =>
    setKeyScopes(db, id, parseScopes(list!), Date.now()));
}

/** `cei keys <name> <id> [value] --meter <file> [--json]`: one change, then the key as it now is. */
function registerChange(
  keys: Command,
  name: string,
  description: string,
  valueArguments: Array<[name: string, description: string]>,
  change: (db: MeterDatabase, id: string, value?: string) => KeySummary,
): void {
  const command = keys.command(name).description(description).argument("<id>", "key id (key_...)");
  for (const [argument, about] of valueArguments) command.argument(argument, about);
  command
    .requiredOption("--meter <file>", "meter database file")
    .option("--json", "print the key as one JSON object")
    .action((id: string, ...rest: unknown[]) => {
      const value = valueArguments.length > 0 ? (rest[0] as string) : undefined;
      const options = rest[valueArguments.length] as MeterOption;
      run(name, () => {
        const key = withMeter(options.meter, true, (db) => change(db, id, value));
        if (options.json) return print(key);
        console.log(`${key.id}: ${describe(key)}`);
      });
    });
}

function withMeter<T>(file: string, mustExist: boolean, use: (db: MeterDatabase) => T): T {
  let db: MeterDatabase;
  try {
    db = openMeterDatabase(file, { mustExist });
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    throw new KeyManagementError(`cannot open meter file "${file}": ${message}`);
  }
  try {
    return use(db);
  } finally {
    db.close();
  }
}

function run(command: string, body: () => void): void {
  try {
    body();
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    console.error(`cei keys ${command}: ${message.split("\n")[0]}`);
    process.exitCode = 1;
  }
}

/**
 * A label as it can be shown on a terminal: quotes and backslashes escaped, and control and bidi
 * formatting characters written as \u{...}, so that a name cannot rewrite or reorder the listing.
 */
function quotedLabel(label: string): string {
  const escaped = label.replace(/[\\"\u0000-\u001F\u007F-\u009F\u202A-\u202E\u2066-\u2069]/g, (char) =>
    char === "\\" || char === '"' ? `\\${char}` : `\\u{${char.codePointAt(0)!.toString(16).toUpperCase().padStart(4, "0")}}`);
  return `"${escaped}"`;
}

function describe(key: KeySummary): string {
  const scopes = key.scopes.length === allScopes.length ? "all scopes" : `scopes ${key.scopes.join(",")}`;
  const name = key.name === null ? "" : `, name ${quotedLabel(key.name)}`;
  return `${key.state}, tier ${key.tier}, ${key.credits} credits, ${scopes}${name}`;
}

function print(value: unknown): void {
  console.log(JSON.stringify(value));
}
