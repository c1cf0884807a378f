// Moments on the command line: an ISO 8601 date-time with its zone (Z or ±hh:mm). Local time is
// refused, so that the same command means the same moment on every machine.
import { InvalidArgumentError } from "commander";

const ZONED_DATE_TIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(?::\d{2}(?:\.\d{1,9})?)?(?:Z|[+-]\d{2}:\d{2})$/;
const DATE = /^\d{4}-\d{2}-\d{2}$/;

/** `cei compile --as-of`, `cei keys create --expires`, ...: a date-time with a zone, and one that exists. */
export function parseZonedDateTime(value: string): Date {
  if (!ZONED_DATE_TIME.test(value)) {
    const hint = /^\d{4}-\d{2}-\d{2}T[\d:.]+$/.test(value) ? ` (${value} has no zone: add Z for UTC, or an offset such as +09:00)` : "";
    throw new InvalidArgumentError(`expected an ISO 8601 date-time with a zone, e.g. 2026-03-01T12:00:00Z${hint}`);
  }
  return _existing(value, Date.parse(value));
}

/** A date-time with a zone, or a date alone meaning its start in UTC (`cei keys usage --from 2026-11-01`). */
export function parseDateOrDateTime(value: string): Date {
  return DATE.test(value) ? _existing(value, Date.parse(`${value}T00:00:00Z`)) : parseZonedDateTime(value);
}

/** Date.parse rolls 2026-02-30 over into March; a date that does not exist is refused instead. */
function _existing(value: string, ms: number): Date {
  const [year, month, day] = value.slice(0, 10).split("-").map(Number) as [number, number, number];
  const probe = new Date(Date.UTC(year, month - 1, day));
  if (probe.getUTCMonth() !== month - 1 || probe.getUTCDate() !== day || Number.isNaN(ms)) {
    throw new InvalidArgumentError(`${value} is not a date-time that exists`);
  }
  return new Date(ms);
}
