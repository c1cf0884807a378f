// A client that asks for one path as fast as `connections` keep-alive connections allow, run as its
// own process (see _slowloris.mjs for why): prints {"ready":true} after its first answer, and on
// SIGTERM one line with the answers by status and the bytes received.
// Usage: node _flood.mjs <url> <connections> <localAddress> [accept-encoding]
import { Agent, request } from "node:http";

const [url, connections, localAddress, acceptEncoding] = [process.argv[2], Number(process.argv[3]), process.argv[4], process.argv[5]];
const agent = new Agent({ keepAlive: true, maxSockets: connections, localAddress });
const statuses = {};
let bytes = 0;
let stopping = false;
let announced = false;

function ask() {
  if (stopping) return;
  const req = request(url, { agent, headers: acceptEncoding === undefined ? {} : { "accept-encoding": acceptEncoding } }, (res) => {
    res.on("data", (chunk) => (bytes += chunk.length));
    res.once("end", () => {
      statuses[res.statusCode] = (statuses[res.statusCode] ?? 0) + 1;
      if (!announced) {
        announced = true;
        process.stdout.write(JSON.stringify({ ready: true }) + "\n");
      }
      ask();
    });
  });
  req.once("error", () => setTimeout(ask, 10));
  req.end();
}

for (let i = 0; i < connections; i++) ask();
process.on("SIGTERM", () => {
  stopping = true;
  process.stdout.write(JSON.stringify({ done: true, statuses, bytes }) + "\n", () => process.exit(0));
});
