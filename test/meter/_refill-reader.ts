// Child process for the refill test: a reader of its own (either meter) whose clock is the one
// given, says "ready", waits for "go" on stdin, settles `requests` requests of one key at once
// (1 credit each) and prints how many were charged.
import { createInterface } from "node:readline";
import { openMeter } from "../../server/meter/open.ts";
import { answerOf, settleRequest } from "./_helpers.ts";

const [location, secret, nowText, requestsText, label] = process.argv.slice(2);
const now = Number(nowText);
const meter = await openMeter(location!, { now: () => now });
const key = await meter.findKey(secret!);
if (key === undefined) throw new Error("key not found");

console.log("ready");
await new Promise<void>((resolve) => createInterface({ input: process.stdin }).once("line", () => resolve()));
const settled = await Promise.all(Array.from({ length: Number(requestsText) }, (_, i) => settleRequest(meter, key, 1, `${label}_${i}`)));
await meter.close();
console.log(JSON.stringify({ charged: settled.filter((settlement) => answerOf(settlement).status === 200).length }));
