// Which meter a `--meter` value names: a postgres:// or postgresql:// URL is a PostgreSQL database
// shared by any number of readers; anything else is a SQLite file path, for one machine.
import { SqliteMeter } from "./meter.ts";
import type { Meter, MeterOptions } from "./interface.ts";
import { PostgresMeter } from "./postgres/meter.ts";
import { isPostgresUrl } from "./postgres/_pool.ts";

export { isPostgresUrl, redactUrl } from "./postgres/_pool.ts";

export async function openMeter(location: string, options: MeterOptions = {}): Promise<Meter> {
  if (isPostgresUrl(location)) return PostgresMeter.open(location, { now: options.now });
  return SqliteMeter.open(location, options);
}
