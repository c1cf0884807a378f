// `cei keys ...`: operator commands on the meter, a SQLite file or a postgres:// URL. Problems exit 1
// with one line on stderr.
import type { Command } from "commander";
import { parseCredits, parseScopes, parseTier, type KeyStore, type KeySummary } from "../server/meter/key-store.ts";
import { openKeyStore } from "../server/meter/open.ts";
import { scopes as allScopes, tiers } from "../server/policy.ts";

interface MeterOption { meter: string; json?: boolean }

const METER_HELP = "meter: a SQLite file, or a postgres:// URL";

export function registerKeys(program: Command): void {
  const keys = program
    .command("keys")
    .description("Manage API keys in the meter (a SQLite file or a postgres:// URL): issue, list, disable/enable, revoke, top up, change tier or scopes.");

  keys
    .command("migrate")
    .description("Bring the meter's schema up to date (every command and `cei serve` also do this on first use).")
    .requiredOption("--meter <file|url>", METER_HELP)
    .action((options: MeterOption) =>
      run("migrate", async () => {
        const version = await withStore(options.meter, false, (store) => store.schemaVersion());
        console.log(`meter schema at version ${version}`);
      }));

  keys
    .command("create")
    .description("Issue a key. The secret is printed once and stored only as its sha256.")
    .requiredOption("--meter <file|url>", `${METER_HELP}; a file is created if missing`)
    .requiredOption("--tier <tier>", `rate-limit tier: ${tiers.join(", ")}`)
    .requiredOption("--credits <n>", "opening balance in credits (whole number >= 0)")
    .option("--scopes <a,b,...>", `comma-separated scopes (default: all of ${allScopes.join(", ")})`)
    .option("--name <label>", "a label to recognise the key by")
    .option("--json", "print one JSON object (id, key, prefix, name, tier, scopes, credits, ...)")
    .action((options: MeterOption & { tier: string; credits: string; scopes?: string; name?: string }) =>
      run("create", async () => {
        const tier = parseTier(options.tier);
        const credits = parseCredits(options.credits, 0);
        const scopes = options.scopes === undefined ? undefined : parseScopes(options.scopes);
        const created = await withStore(options.meter, false, (store) =>
          store.create({ tier, credits, scopes, name: options.name }, Date.now()));
        if (options.json) return print(created);
        console.log(`created ${created.id} (${describe(created)})`);
        console.log(`key: ${created.key}`);
        console.log("This secret is shown only now; it cannot be recovered. Send it as: Authorization: Bearer <key>");
      }));

  keys
    .command("list")
    .description("List keys with state, tier, credits and scopes (never secrets).")
    .requiredOption("--meter <file|url>", METER_HELP)
    .option("--json", "print a JSON array")
    .action((options: MeterOption) =>
      run("list", async () => {
        const all = await withStore(options.meter, true, (store) => store.list());
        if (options.json) return print(all);
        if (all.length === 0) return console.log("no keys");
        for (const key of all) console.log(`${key.id}  ${key.prefix}…  ${describe(key)}`);
      }));

  registerChange(keys, "disable", "Disable a key (403 until enabled again).", [], (store, id) => store.disable(id, Date.now()));
  registerChange(keys, "enable", "Enable a disabled key (a revoked key stays revoked).", [], (store, id) => store.enable(id, Date.now()));
  registerChange(keys, "revoke", "Revoke a key. Final: it can never be enabled again.", [], (store, id) => store.revoke(id, Date.now()));
  registerChange(keys, "credit", "Top up a key's balance (recorded in the ledger).", [["<amount>", "credits to add (whole number >= 1)"]], (store, id, amount) =>
    store.credit(id, parseCredits(amount!, 1), Date.now()));
  registerChange(keys, "tier", `Change a key's rate-limit tier (${tiers.join(", ")}).`, [["<tier>", tiers.join(", ")]], (store, id, tier) =>
    store.setTier(id, parseTier(tier!), Date.now()));
  registerChange(keys, "scopes", `Replace a key's scopes (comma-separated: ${allScopes.join(", ")}).`, [["<scopes>", "comma-separated, e.g. search,projects"]], (store, id, list) =>
    store.setScopes(id, parseScopes(list!), Date.now()));
}

/** `cei keys <name> <id> [value] --meter <file|url> [--json]`: one change, then the key as it now is. */
function registerChange(
  keys: Command,
  name: string,
  description: string,
  valueArguments: Array<[name: string, description: string]>,
  change: (store: KeyStore, id: string, value?: string) => Promise<KeySummary>,
): void {
  const command = keys.command(name).description(description).argument("<id>", "key id (key_...)");
  for (const [argument, about] of valueArguments) command.argument(argument, about);
  command
    .requiredOption("--meter <file|url>", METER_HELP)
    .option("--json", "print the key as one JSON object")
    .action((id: string, ...rest: unknown[]) => {
      const value = valueArguments.length > 0 ? (rest[0] as string) : undefined;
      const options = rest[valueArguments.length] as MeterOption;
      return run(name, async () => {
        const key = await withStore(options.meter, true, (store) => change(store, id, value));
        if (options.json) return print(key);
        console.log(`${key.id}: ${describe(key)}`);
      });
    });
}

async function withStore<T>(location: string, mustExist: boolean, use: (store: KeyStore) => Promise<T>): Promise<T> {
  const store = await openKeyStore(location, { mustExist });
  try {
    return await use(store);
  } finally {
    await store.close();
  }
}

async function run(command: string, body: () => Promise<void>): Promise<void> {
  try {
    await body();
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
