// Which meter a `--meter` value names: a postgres:// or postgresql:// URL is a PostgreSQL database
// shared by any number of readers; anything else is a SQLite file path, for one machine. The key
// store (`cei keys`) is opened by the same rule.
import { openMeterDatabase } from "./sqlite/database.ts";
import type { Meter, MeterOptions } from "./interface.ts";
import { KeyManagementError, type KeyStore } from "./key-store.ts";
import { SqliteKeyStore } from "./sqlite/keys.ts";
import { SqliteMeter } from "./sqlite/meter.ts";
import { PostgresKeyStore } from "./postgres/keys.ts";
import { PostgresMeter } from "./postgres/meter.ts";
import { isPostgresUrl, redactUrl } from "./location.ts";

export { isPostgresUrl, redactUrl } from "./location.ts";

export async function openMeter(location: string, options: MeterOptions = {}): Promise<Meter> {
  if (isPostgresUrl(location)) return PostgresMeter.open(location, { now: options.now, warn: options.warn, observer: options.observer });
  return SqliteMeter.open(location, options);
}

/**
 * `mustExist`: a mistyped file path fails instead of starting an empty meter (a PostgreSQL
 * database must always exist already; its tables are created on first use).
 */
export async function openKeyStore(location: string, options: { mustExist: boolean; now?: () => number }): Promise<KeyStore> {
  try {
    if (isPostgresUrl(location)) return await PostgresKeyStore.open(location, options.now ?? Date.now);
    return new SqliteKeyStore(openMeterDatabase(location, { mustExist: options.mustExist, now: options.now }));
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    const what = isPostgresUrl(location) ? "meter database" : "meter file";
    throw new KeyManagementError(`cannot open ${what} "${redactUrl(location)}": ${message}`);
  }
}
