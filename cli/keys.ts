// `cei keys ...`: operator commands on the meter, a SQLite file or a postgres:// URL. Problems exit 1
// with one line on stderr. Every change is audited, by `--actor` or the OS user (decision 37).
import type { Command } from "commander";
import { parseCredits, parseScopes, parseTier, KeyManagementError, type KeyStore, type KeySummary, type Refill } from "../server/meter/key-store.ts";
import { parseGrace, parseRefillEvery } from "../server/meter/lifecycle.ts";
import { openKeyStore } from "../server/meter/open.ts";
import { parseUsageBy } from "../server/meter/usage.ts";
import { scopes as allScopes, tiers } from "../server/policy.ts";
import { parseDateOrDateTime, parseZonedDateTime } from "./_dates.ts";
import { describeKey, printAudit, printJson, printUsage } from "./_keys-output.ts";

interface StoreOptions { meter: string; json?: boolean; actor?: string }

const METER_HELP = "meter: a SQLite file, or a postgres:// URL";
const ACTOR_HELP = "who the audit log names for this change (default: the OS user)";
const ID_HELP = "key id (key_...)";

export function registerKeys(program: Command): void {
  const keys = program
    .command("keys")
    .description("Manage API keys in the meter (a SQLite file or a postgres:// URL): issue, list, disable/enable, revoke, reroll, expire, "
      + "top up, debit, transfer, refill, change tier or scopes; read the audit log and usage.");

  storeCommand(keys, "migrate", "Bring the meter's schema up to date (every command and `cei serve` also do this on first use).", false)
    .action((options: StoreOptions) =>
      run("migrate", async () => {
        const version = await withStore(options, false, (store) => store.schemaVersion());
        console.log(`meter schema at version ${version}`);
      }));

  storeCommand(keys, "create", "Issue a key. The secret is printed once and stored only as its sha256.", true, `${METER_HELP}; a file is created if missing`)
    .requiredOption("--tier <tier>", `rate-limit tier: ${tiers.join(", ")}`)
    .requiredOption("--credits <n>", "opening balance in credits (whole number >= 0)")
    .option("--scopes <a,b,...>", `comma-separated scopes (default: all of ${allScopes.join(", ")})`)
    .option("--name <label>", "a label to recognise the key by")
    .option("--expires <date-time>", "the moment the key ends (403 from then on): ISO 8601 with a zone, e.g. 2027-01-01T00:00:00Z")
    .action((options: StoreOptions & { tier: string; credits: string; scopes?: string; name?: string; expires?: string }) =>
      run("create", async () => {
        const tier = parseTier(options.tier);
        const credits = parseCredits(options.credits, 0);
        const scopes = options.scopes === undefined ? undefined : parseScopes(options.scopes);
        const now = Date.now();
        const expiresAt = options.expires === undefined ? undefined : moment(options.expires, false, now) ?? undefined;
        const created = await withStore(options, false, (store) => store.create({ tier, credits, scopes, name: options.name, expiresAt }, now));
        printSecret("created", created, options.json);
      }));

  storeCommand(keys, "list", "List keys with state, tier, credits, scopes, expiry, refill and last use (never secrets).", false)
    .action((options: StoreOptions) =>
      run("list", async () => {
        const all = await withStore(options, true, (store) => store.list(Date.now()));
        if (options.json) return printJson(all);
        if (all.length === 0) return console.log("no keys");
        for (const key of all) console.log(`${key.id}  ${key.prefix}…  ${describeKey(key)}`);
      }));

  changeCommand(keys, "disable", "Disable a key (403 until enabled again).", [], (store, [id]) => store.disable(id!, Date.now()));
  changeCommand(keys, "enable", "Enable a disabled key (a revoked key stays revoked).", [], (store, [id]) => store.enable(id!, Date.now()));
  changeCommand(keys, "revoke", "Revoke a key. Final: it can never be enabled again.", [], (store, [id]) => store.revoke(id!, Date.now()));
  changeCommand(keys, "credit", "Top up a key's balance (recorded in the ledger).", [["<amount>", "credits to add (whole number >= 1)"]], (store, [id, amount]) =>
    store.credit(id!, parseCredits(amount!, 1), Date.now()));
  changeCommand(keys, "debit", "Take credits from a key's balance (recorded in the ledger; never below 0; a revoked key's too).",
    [["<amount>", "credits to take (whole number >= 1)"]], (store, [id, amount]) => store.debit(id!, parseCredits(amount!, 1), Date.now()));
  changeCommand(keys, "tier", `Change a key's rate-limit tier (${tiers.join(", ")}).`, [["<tier>", tiers.join(", ")]], (store, [id, tier]) =>
    store.setTier(id!, parseTier(tier!), Date.now()));
  changeCommand(keys, "scopes", `Replace a key's scopes (comma-separated: ${allScopes.join(", ")}).`, [["<scopes>", "comma-separated, e.g. search,projects"]], (store, [id, list]) =>
    store.setScopes(id!, parseScopes(list!), Date.now()));
  changeCommand(keys, "expire", "End a key at a moment (403 from then on), at once (now), or never.",
    [["<moment>", "ISO 8601 date-time with a zone (e.g. 2027-01-01T00:00:00Z), now, or never"]], (store, [id, at]) => {
      const now = Date.now();
      return store.expire(id!, moment(at!, true, now), now);
    });

  storeCommand(keys, "reroll", "Issue a new secret for a key (same id, tier, scopes and balance), printed once. The old secret keeps working for the grace period.", true)
    .argument("<id>", ID_HELP)
    .option("--grace <duration>", "how long the old secret stays valid: 0 (not at all), or e.g. 90s, 30m, 24h, 7d", "24h")
    .action((id: string, options: StoreOptions & { grace: string }) =>
      run("reroll", async () => {
        const grace = parseGrace(options.grace);
        const now = Date.now();
        const rerolled = await withStore(options, true, (store) => store.reroll(id, grace, now));
        printSecret("rerolled", rerolled, options.json, grace === 0 ? "The old secret no longer works." : `The old secret works until ${new Date(now + grace).toISOString()}.`);
      }));

  storeCommand(keys, "refill", "Top a key's balance up to --to credits at the start of every UTC day or month, from the next one on; --off stops it.", true)
    .argument("<id>", ID_HELP)
    .option("--every <period>", "day or month")
    .option("--to <credits>", "the balance to top up to (whole number >= 1)")
    .option("--off", "remove the key's refill")
    .action((id: string, options: StoreOptions & { every?: string; to?: string; off?: boolean }) =>
      run("refill", async () => {
        const key = await withStore(options, true, (store) => store.setRefill(id, refillOf(options), Date.now()));
        printKey(key, options.json);
      }));

  storeCommand(keys, "transfer", "Move credits from one key to another in one transaction (audited on both; never below 0; from a revoked key too).", true)
    .argument("<from>", "key id to take the credits from")
    .argument("<to>", "key id to give them to")
    .argument("<amount>", "credits to move (whole number >= 1)")
    .action((from: string, to: string, amount: string, options: StoreOptions) =>
      run("transfer", async () => {
        const moved = await withStore(options, true, (store) => store.transfer(from, to, parseCredits(amount, 1), Date.now()));
        if (options.json) return printJson(moved);
        for (const key of moved) console.log(`${key.id}: ${describeKey(key)}`);
      }));

  storeCommand(keys, "audit", "Print the audit log of admin actions (who, what, when, before and after), oldest first.", false)
    .option("--key <id>", "only the actions on this key")
    .action((options: StoreOptions & { key?: string }) =>
      run("audit", async () => {
        const entries = await withStore(options, true, (store) => store.audit({ keyId: options.key }));
        if (options.json) return printJson(entries);
        printAudit(entries);
      }));

  storeCommand(keys, "usage", "Report charged requests and credits from the ledger, by key, UTC day and/or operation (for billing).", false)
    .option("--from <moment>", "first moment included: a date (UTC midnight) or an ISO 8601 date-time with a zone")
    .option("--to <moment>", "first moment excluded, in the same forms")
    .option("--by <dimensions>", "key, day, operation, or several comma-separated (e.g. key,day)", "key")
    .option("--csv", "print CSV with a header row")
    .action((options: StoreOptions & { from?: string; to?: string; by: string; csv?: boolean }) =>
      run("usage", async () => {
        if (options.json && options.csv) throw new KeyManagementError("--json and --csv cannot be used together");
        const by = parseUsageBy(options.by);
        const from = options.from === undefined ? undefined : dateOption("--from", options.from);
        const to = options.to === undefined ? undefined : dateOption("--to", options.to);
        if (from !== undefined && to !== undefined && from >= to) throw new KeyManagementError("--from must be before --to");
        const rows = await withStore(options, true, (store) => store.usage({ from, to, by }));
        if (options.json) return printJson(rows);
        printUsage(rows, by, options.csv === true);
      }));
}

/** `cei keys <name> --meter <file|url> [--json]`, and `--actor` for a command that changes something. */
function storeCommand(keys: Command, name: string, description: string, changes: boolean, meterHelp = METER_HELP): Command {
  const command = keys.command(name).description(description).requiredOption("--meter <file|url>", meterHelp).option("--json", "print JSON");
  if (changes || name === "migrate") command.option("--actor <name>", ACTOR_HELP);
  return command;
}

/** `cei keys <name> <id> [value...] --meter <file|url> [--json] [--actor <name>]`: one change, then the key as it now is. */
function changeCommand(
  keys: Command,
  name: string,
  description: string,
  valueArguments: Array<[name: string, description: string]>,
  change: (store: KeyStore, values: string[]) => Promise<KeySummary>,
): void {
  const command = storeCommand(keys, name, description, true).argument("<id>", ID_HELP);
  for (const [argument, about] of valueArguments) command.argument(argument, about);
  command.action((...args: unknown[]) => {
    const values = args.slice(0, valueArguments.length + 1) as string[];
    const options = args[valueArguments.length + 1] as StoreOptions;
    return run(name, async () => printKey(await withStore(options, true, (store) => change(store, values)), options.json));
  });
}

/** `now`, `never` (only where a key may stop expiring) or a date-time with a zone. */
function moment(value: string, neverAllowed: boolean, now: number): number | null {
  if (value === "now") return now;
  if (value === "never" && neverAllowed) return null;
  try {
    return parseZonedDateTime(value).getTime();
  } catch (error) {
    throw new KeyManagementError(`invalid moment "${value}": ${(error as Error).message}${neverAllowed ? ", now or never" : ""}`);
  }
}

function dateOption(option: string, value: string): number {
  try {
    return parseDateOrDateTime(value).getTime();
  } catch (error) {
    throw new KeyManagementError(`invalid ${option} "${value}": ${(error as Error).message}, or a date such as 2026-11-01`);
  }
}

function refillOf(options: { every?: string; to?: string; off?: boolean }): Refill | null {
  if (options.off) {
    if (options.every !== undefined || options.to !== undefined) throw new KeyManagementError("--off removes the refill: give it alone, without --every or --to");
    return null;
  }
  if (options.every === undefined || options.to === undefined) throw new KeyManagementError("give --every day|month and --to <credits>, or --off");
  return { every: parseRefillEvery(options.every), to: parseCredits(options.to, 1) };
}

async function withStore<T>(options: StoreOptions, mustExist: boolean, use: (store: KeyStore) => Promise<T>): Promise<T> {
  const store = await openKeyStore(options.meter, { mustExist, actor: options.actor });
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

function printKey(key: KeySummary, json: boolean | undefined): void {
  if (json) return printJson(key);
  console.log(`${key.id}: ${describeKey(key)}`);
}

function printSecret(verb: string, key: KeySummary & { key: string }, json: boolean | undefined, note?: string): void {
  if (json) return printJson(key);
  console.log(`${verb} ${key.id} (${describeKey(key)})`);
  console.log(`key: ${key.key}`);
  console.log("This secret is shown only now; it cannot be recovered. Send it as: Authorization: Bearer <key>");
  if (note !== undefined) console.log(note);
}
