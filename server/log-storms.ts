// A storm of one error (PostgreSQL down: every request fails the same way) is logged once per
// interval, not once per request: the first line whole (with its stack), then at the end of each
// interval in which it came again one summary line with `repeated: N`. A 5 s outage once wrote
// 19,374 stacks. Lines below level error are never held back: one line per request stays.
import type { LogFn, Logger } from "pino";

export const REPEAT_INTERVAL_MS = 10_000;
/** pino's level number of `error`. */
const ERROR_LEVEL = 50;
/** Kinds tracked at once; a storm of ever-different messages beyond it is logged line by line. */
const MAX_KINDS = 256;

type LogArgs = Parameters<LogFn>;

interface Kind {
  readonly logger: Logger;
  readonly method: LogFn;
  repeated: number;
  /** The last repeat's arguments: its fields (request id, ...) go into the summary. */
  last: LogArgs;
  timer: NodeJS.Timeout;
}

export interface RepeatLimiter {
  /** pino's `hooks.logMethod`. */
  logMethod(this: Logger, args: LogArgs, method: LogFn, level: number): void;
  /** Writes every pending summary now (before exit). */
  flush(): void;
}

/** What makes two lines "the same error": the message, and the error's name, code and message. */
function _kindOf(args: LogArgs): { key: string; err: unknown; fields: Record<string, unknown>; msg: unknown } {
  const [first, second] = args as unknown[];
  if (typeof first === "string") return { key: first, err: undefined, fields: {}, msg: first };
  const err = first instanceof Error ? first : (first as { err?: unknown } | null)?.err;
  const fields = first instanceof Error ? { err: first } : (first as Record<string, unknown>);
  const e = err as { name?: unknown; code?: unknown; message?: unknown } | undefined;
  const msg = second ?? (first instanceof Error ? first.message : undefined);
  return { key: `${String(msg)}\0${String(e?.name)}\0${String(e?.code)}\0${String(e?.message)}`, err, fields, msg };
}

/**
 * The error of a summary line: what it was, without the stack the first line already gave. Under
 * `error`, not `err`: pino's serializer would give any object under `err` a stack field.
 */
function _withoutStack(err: unknown): unknown {
  if (!(err instanceof Error)) return err;
  const code = (err as { code?: unknown }).code;
  return { type: err.name, message: err.message, ...(code === undefined ? {} : { code }) };
}

export function repeatLimiter(intervalMs: number = REPEAT_INTERVAL_MS): RepeatLimiter {
  const kinds = new Map<string, Kind>();
  const summarise = (key: string, kind: Kind): boolean => {
    if (kind.repeated === 0) {
      kinds.delete(key);
      return false;
    }
    const { fields: { err, ...fields }, msg } = _kindOf(kind.last);
    kind.method.call(kind.logger, { ...fields, error: _withoutStack(err), repeated: kind.repeated, interval_ms: intervalMs }, msg as string);
    kind.repeated = 0;
    return true;
  };
  const arm = (key: string, kind: Kind) => {
    kind.timer = setTimeout(() => {
      if (summarise(key, kind)) arm(key, kind);
    }, intervalMs).unref();
  };
  return {
    logMethod(args, method, level) {
      if (level < ERROR_LEVEL) return method.apply(this, args);
      const { key } = _kindOf(args);
      const kind = kinds.get(key);
      if (kind !== undefined) {
        kind.repeated++;
        kind.last = args;
        return;
      }
      method.apply(this, args);
      if (kinds.size >= MAX_KINDS) return;
      const fresh: Kind = { logger: this, method, repeated: 0, last: args, timer: undefined as unknown as NodeJS.Timeout };
      kinds.set(key, fresh);
      arm(key, fresh);
    },
    flush() {
      for (const [key, kind] of kinds) {
        clearTimeout(kind.timer);
        summarise(key, kind);
        kinds.delete(key);
      }
    },
  };
}
