// Which meter a `--meter` value names: a postgres:// or postgresql:// URL is a PostgreSQL database
// shared by any number of readers; anything else is a SQLite file path, for one machine. The key
// store (`cei keys`) is opened by the same rule.
import { openMeterDatabase } from "./sqlite/database.ts";
import type { Meter, MeterOptions } from "./interface.ts";
import { KeyManagementError, type KeyStore } from "./key-store.ts";
import { SqliteKeyStore, auditMigration } from "./sqlite/keys.ts";
import { checkedActor, defaultActor } from "./lifecycle.ts";
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
 * database must always exist already; its tables are created on first use). `actor`: who the
 * audit log says made the changes (default: the OS user); a migration this open applies is audited too.
 */
export async function openKeyStore(location: string, options: { mustExist: boolean; now?: () => number; actor?: string }): Promise<KeyStore> {
  const now = options.now ?? Date.now;
  const actor = checkedActor(options.actor ?? defaultActor());
  try {
    if (isPostgresUrl(location)) return await PostgresKeyStore.open(location, now, actor);
    let versions = { from: 0, to: 0 };
    const db = openMeterDatabase(location, { mustExist: options.mustExist, now, migrated: (applied) => { versions = applied; } });
    auditMigration(db, versions, now(), actor);
    return new SqliteKeyStore(db, actor);
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    const what = isPostgresUrl(location) ? "meter database" : "meter file";
    throw new KeyManagementError(`cannot open ${what} "${redactUrl(location)}": ${message}`);
  }
}
