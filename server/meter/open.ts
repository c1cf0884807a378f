// Which meter a `--meter` value names: a postgres:// or postgresql:// URL is a PostgreSQL database
// shared by any number of readers; anything else is a SQLite file path, for one machine.
import { SqliteMeter, type Meter, type MeterOptions } from "./meter.ts";
import { PostgresMeter } from "./postgres/meter.ts";
import { isPostgresUrl } from "./postgres/_pool.ts";

export { isPostgresUrl } from "./postgres/_pool.ts";
export { redactUrl } from "./postgres/_redact.ts";

export async function openMeter(location: string, options: MeterOptions = {}): Promise<Meter> {
  if (isPostgresUrl(location)) return PostgresMeter.open(location, { now: options.now, warn: options.warn });
  return SqliteMeter.open(location, options);
}
