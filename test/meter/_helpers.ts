// Shared set-up for the meter tests: a fresh meter file in a temporary folder, keys issued
// through the real key-management functions, and a second connection to inspect the file.
import Database from "better-sqlite3";
import { spawn } from "node:child_process";
import { createInterface } from "node:readline";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { openMeterDatabase } from "../../server/meter/sqlite/database.ts";
import { createKey } from "../../server/meter/sqlite/keys.ts";
import type { CreatedKey } from "../../server/meter/key-store.ts";
import type { KeyRecord, Meter, Settlement } from "../../server/meter/interface.ts";
import type { Scope, Tier } from "../../server/policy.ts";

/** 2026-11-21T18:29:10.250Z: inside the window that ends at 18:30:00.000Z. */
export const T0 = Date.UTC(2026, 10, 21, 18, 29, 10, 250);

export interface TempDir { path: string; file(name: string): string; remove(): void }

export function tempDir(): TempDir {
  const path = mkdtempSync(join(tmpdir(), "cei-meter-"));
  return { path, file: (name) => join(path, name), remove: () => rmSync(path, { recursive: true, force: true }) };
}

export function issueKey(
  file: string,
  options: { tier?: Tier; credits: number; scopes?: Scope[]; name?: string },
  now = T0,
): CreatedKey {
  const db = openMeterDatabase(file, { now: () => now });
  try {
    return createKey(db, { tier: options.tier ?? "free", credits: options.credits, scopes: options.scopes, name: options.name }, now);
  } finally {
    db.close();
  }
}

/** Reads the file through its own connection, as another process would see it. */
export function inspect(file: string): {
  credits(keyId: string): number;
  ledger(keyId: string): Array<{ kind: string; operation: string | null; delta: number; request_id: string | null }>;
  ledgerSum(keyId: string): number;
  close(): void;
} {
  const db = new Database(file, { readonly: true, fileMustExist: true });
  return {
    credits: (keyId) => db.prepare("SELECT credits FROM balances WHERE key_id = ?").pluck().get(keyId) as number,
    ledger: (keyId) =>
      db.prepare("SELECT kind, operation, delta, request_id FROM ledger WHERE key_id = ? ORDER BY seq").all(keyId) as never,
    ledgerSum: (keyId) => db.prepare("SELECT coalesce(sum(delta), 0) FROM ledger WHERE key_id = ?").pluck().get(keyId) as number,
    close: () => db.close(),
  };
}

/**
 * A request as the pipeline settles it: its work asks for `cost` when the balance it is given
 * covers it, and answers 402 (costing nothing) otherwise.
 */
export function settleRequest(meter: Meter, key: KeyRecord, cost: number, requestId: string): Promise<Settlement<"ok" | "402">> {
  return meter.settle({
    key, operation: "search_entities", requestId,
    work: (admission) => (admission.credits_remaining < cost ? { value: "402", cost: 0 } : { value: "ok", cost }),
  });
}

/** What the caller of a settled request was answered: its status and the balance it was told. */
export function answerOf(settlement: Settlement<unknown>): { status: 200 | 402 | 403 | 429 | 499 | 500; credits_remaining: number } {
  const { admission } = settlement;
  if (settlement.outcome === "refused") return { status: admission.result === "forbidden" ? 403 : 429, credits_remaining: admission.credits_remaining };
  if (settlement.outcome === "failed") return { status: 500, credits_remaining: admission.credits_remaining };
  if (settlement.outcome === "abandoned") return { status: 499, credits_remaining: admission.credits_remaining };
  const { charge } = settlement;
  if (charge === undefined) return { status: settlement.value === "402" ? 402 : 200, credits_remaining: admission.credits_remaining };
  const status = charge.result === "charged" ? 200 : charge.result === "forbidden" ? 403 : 402;
  return { status, credits_remaining: charge.credits_remaining };
}

/** A child (a tsx script) that prints "ready", waits for a line on stdin, then prints its tally as JSON last. */
export interface ReadyChild { ready: Promise<void>; done: Promise<Record<string, number>>; go(): void }

export function startReadyChild(script: string, args: string[], label: string): ReadyChild {
  const child = spawn(process.execPath, ["--import", "tsx", script, ...args], { stdio: ["pipe", "pipe", "pipe"] });
  const lines: string[] = [];
  let stderr = "";
  child.stderr.on("data", (chunk: Buffer) => { stderr += chunk.toString(); });
  const exited = new Promise<number | null>((resolve) => child.on("close", resolve));
  const ready = new Promise<void>((resolve, reject) => {
    createInterface({ input: child.stdout }).on("line", (line) => {
      lines.push(line);
      if (line === "ready") resolve();
    });
    void exited.then(() => reject(new Error(`${label} exited before it was ready: ${stderr}`)));
  });
  // A crashed child fails the test at once instead of leaving it waiting for a tally.
  const done = exited.then((code) => {
    if (code !== 0) throw new Error(`${label} exited with ${code}: ${stderr}`);
    return JSON.parse(lines.at(-1)!) as Record<string, number>;
  });
  return { ready, done, go: () => child.stdin.end("go\n") };
}
