// Helpers for the compiler's tests: open a compiled snapshot and read whole tables.
import Database from "better-sqlite3";

export function openSnapshot(path: string): Database.Database {
  return new Database(path, { readonly: true, fileMustExist: true });
}

export function rows(db: Database.Database, sql: string, ...params: unknown[]): unknown[] {
  return db.prepare(sql).all(...params);
}

export function manifestOf(db: Database.Database): Record<string, unknown> {
  const entries = db.prepare("SELECT key, value FROM manifest").all() as Array<{ key: string; value: string }>;
  return Object.fromEntries(entries.map((e) => [e.key, JSON.parse(e.value) as unknown]));
}
