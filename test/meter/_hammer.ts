// Child process for the cross-process double-spend test: opens its own Meter on the shared file,
// says "ready", waits for "go" on stdin, then settles `attempts` requests in small concurrent
// bursts (many transactions, interleaving with the other processes) and prints its tally as JSON.
import { createInterface } from "node:readline";
import { SqliteMeter } from "../../server/meter/sqlite/meter.ts";
import { answerOf, settleRequest } from "./_helpers.ts";

const [file, secret, attemptsText, cost, label] = process.argv.slice(2);
const attempts = Number(attemptsText);
const meter = SqliteMeter.open(file!);
const key = meter.findKey(secret!);
if (key === undefined) throw new Error("key not found");

console.log("ready");
await new Promise<void>((resolve) => createInterface({ input: process.stdin }).once("line", () => resolve()));

const tally = { charged: 0, insufficient_credits: 0, other: 0 };
const BURST = 4;
for (let sent = 0; sent < attempts; sent += BURST) {
  const burst = Array.from({ length: Math.min(BURST, attempts - sent) }, (_, i) => settleRequest(meter, key, Number(cost), `${label}_${sent + i}`));
  for (const settlement of await Promise.all(burst)) {
    const { status } = answerOf(settlement);
    if (status === 200) tally.charged += 1;
    else if (status === 402) tally.insufficient_credits += 1;
    else tally.other += 1;
  }
}
meter.close();
console.log(JSON.stringify(tally));
