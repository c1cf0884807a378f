// The deployment kit's nginx (deploy/nginx/cei.conf), run for real: Debian's nginx (`apt-get install
// -y nginx`; .ci/run installs it) in a temp folder, in front of `cei serve` readers on 127.0.0.1.
// The kit's files are used as they are; only the site's own values are put in: the readers'
// addresses in readers.conf, the folder of the TLS files, of the access log, and the port. TLS is
// real: a self-signed certificate made here with openssl, which the clients verify. Free of vitest,
// so that scripts/nginx-hung-reader.ts runs it too.
import { execFileSync, spawn, type ChildProcess } from "node:child_process";
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { Agent, request } from "node:https";
import { connect } from "node:net";
import { join } from "node:path";
import { freePort, REPO_ROOT } from "./processes.ts";

const NGINX_CANDIDATES = ["/usr/sbin/nginx", "/usr/bin/nginx"];

/** Debian's nginx, or a clear failure (never a silent skip): the kit's tests need the real one. */
export function nginxBinary(): string {
  const found = NGINX_CANDIDATES.find((path) => existsSync(path));
  if (found === undefined) {
    throw new Error(`nginx is not installed (looked for ${NGINX_CANDIDATES.join(", ")}): run \`apt-get install -y nginx\` (.ci/run does) to test the deployment kit`);
  }
  return found;
}

/** `text` with `from` replaced, which must occur exactly `times` times (the kit's file keeps its shape). */
function substitute(text: string, from: string, to: string, times: number): string {
  const found = text.split(from).length - 1;
  if (found !== times) throw new Error(`expected ${times} × "${from}" in the kit's nginx file, found ${found}`);
  return text.split(from).join(to);
}

export interface KitNginx {
  url: string;
  /** The proxy's access log, one parsed JSON object per request so far. */
  accessLog(): Array<Record<string, string | number>>;
  errorLog(): string;
  /** A keep-alive HTTPS client that verifies the proxy's certificate. */
  get(path: string, headers?: Record<string, string>, timeoutMs?: number): Promise<ProxyAnswer>;
  stop(): Promise<void>;
}

export interface ProxyAnswer { status: number; headers: Record<string, string | string[] | undefined>; text: string; ms: number }

/**
 * The kit's cei.conf and readers.conf in front of `readers` (base URLs), started in `dir` (an empty
 * folder); `readers` must be 3, as in the example. `site` may change the kit's file first (the
 * benchmark's baseline does); the tests never do.
 */
export async function startKitNginx(dir: string, readers: readonly string[], site?: (text: string) => string): Promise<KitNginx> {
  const nginx = nginxBinary();
  mkdirSync(join(dir, "tls"));
  mkdirSync(join(dir, "log"));
  execFileSync("openssl", [
    "req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes", "-days", "2",
    "-subj", "/CN=localhost", "-addext", "subjectAltName=IP:127.0.0.1,DNS:localhost",
    "-keyout", join(dir, "tls", "privkey.pem"), "-out", join(dir, "tls", "fullchain.pem"),
  ], { stdio: "ignore" });
  const ca = readFileSync(join(dir, "tls", "fullchain.pem"));

  let example = readFileSync(join(REPO_ROOT, "deploy/nginx/readers.conf"), "utf8");
  const addresses = [...example.matchAll(/^server (\S+?) /gm)].map((match) => match[1]!);
  if (addresses.length !== readers.length) throw new Error(`the kit's readers.conf lists ${addresses.length} readers, the test has ${readers.length}`);
  addresses.forEach((address, index) => (example = substitute(example, `server ${address} `, `server ${new URL(readers[index]!).host} `, 1)));
  writeFileSync(join(dir, "readers.conf"), example);

  const port = await freePort();
  let conf = readFileSync(join(REPO_ROOT, "deploy/nginx/cei.conf"), "utf8");
  conf = substitute(conf, "/etc/nginx/cei/", `${dir}/`, 4);
  conf = substitute(conf, "/var/log/nginx/", `${dir}/log/`, 1);
  conf = substitute(conf, "listen 443 ssl;", `listen 127.0.0.1:${port} ssl;`, 1);
  writeFileSync(join(dir, "cei.conf"), site === undefined ? conf : site(conf));
  // What Debian's nginx.conf holds around the include, in this folder.
  writeFileSync(join(dir, "nginx.conf"), [
    "daemon off;", "worker_processes 1;", "pid nginx.pid;", "error_log log/error.log info;",
    ...(process.getuid?.() === 0 ? ["user root;"] : []),
    "events { worker_connections 1024; }",
    `http { client_body_temp_path tmp; proxy_temp_path tmp; fastcgi_temp_path tmp; uwsgi_temp_path tmp; scgi_temp_path tmp; include ${dir}/cei.conf; }`,
    "",
  ].join("\n"));
  mkdirSync(join(dir, "tmp"));
  execFileSync(nginx, ["-t", "-q", "-p", `${dir}/`, "-c", "nginx.conf", "-e", join(dir, "log", "error.log")]);
  const child: ChildProcess = spawn(nginx, ["-p", `${dir}/`, "-c", "nginx.conf", "-e", join(dir, "log", "error.log")], { stdio: "ignore" });
  const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
  await _listening(port, () => readFileSync(join(dir, "log", "error.log"), "utf8"));

  const agent = new Agent({ keepAlive: true, maxSockets: 64, ca });
  const url = `https://127.0.0.1:${port}`;
  return {
    url,
    accessLog: () => readFileSync(join(dir, "log", "cei-access.log"), "utf8").split("\n").filter((line) => line !== "").map((line) => JSON.parse(line) as Record<string, string | number>),
    errorLog: () => readFileSync(join(dir, "log", "error.log"), "utf8"),
    get: (path, headers = {}, timeoutMs = 30_000) => new Promise<ProxyAnswer>((resolve, reject) => {
      const started = performance.now();
      const req = request(url + path, { agent, headers, timeout: timeoutMs }, (res) => {
        let text = "";
        res.setEncoding("utf8");
        res.on("data", (chunk: string) => (text += chunk));
        res.on("end", () => resolve({ status: res.statusCode!, headers: res.headers, text, ms: performance.now() - started }));
        res.on("error", reject);
      });
      req.on("timeout", () => req.destroy(new Error(`no answer within ${timeoutMs} ms`)));
      req.on("error", reject);
      req.end();
    }),
    async stop() {
      agent.destroy();
      if (child.exitCode === null && child.signalCode === null) child.kill("SIGTERM");
      await exited;
    },
  };
}

async function _listening(port: number, log: () => string): Promise<void> {
  const deadline = Date.now() + 10_000;
  for (;;) {
    const open = await new Promise<boolean>((resolve) => {
      const socket = connect({ port, host: "127.0.0.1" });
      socket.once("connect", () => { socket.destroy(); resolve(true); });
      socket.once("error", () => resolve(false));
    });
    if (open) return;
    if (Date.now() > deadline) throw new Error(`nginx did not listen on ${port}: ${log()}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}
