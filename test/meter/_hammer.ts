// Child process for the cross-process double-spend test: opens its own Meter on the shared file,
// says "ready", waits for "go" on stdin, then charges `attempts` requests in small concurrent
// bursts (many transactions, interleaving with the other processes) and prints its tally as JSON.
import { createInterface } from "node:readline";
import { SqliteMeter, type Charge } from "../../server/meter/meter.ts";

const [file, secret, attemptsText, cost, label] = process.argv.slice(2);
const attempts = Number(attemptsText);
const meter = SqliteMeter.open(file!);
const key = meter.findKey(secret!);
if (key === undefined) throw new Error("key not found");

console.log("ready");
await new Promise<void>((resolve) => createInterface({ input: process.stdin }).once("line", () => resolve()));

const tally: Record<Charge["result"], number> = { charged: 0, forbidden: 0, insufficient_credits: 0 };
const BURST = 4;
for (let sent = 0; sent < attempts; sent += BURST) {
  const burst = Array.from({ length: Math.min(BURST, attempts - sent) }, (_, i) =>
    meter.charge({ key, operation: "search_entities", cost: Number(cost), requestId: `${label}_${sent + i}` }));
  for (const charge of await Promise.all(burst)) tally[charge.result] += 1;
}
meter.close();
console.log(JSON.stringify(tally));
