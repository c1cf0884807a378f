// Child processes for the metering tests: `cei serve` and `cei keys` run exactly as an operator
// runs them (node bin/cei.js ...), and a keep-alive HTTP client for load against them.
import { execFile, spawn, type ChildProcess } from "node:child_process";
import { Agent, request as httpRequest } from "node:http";
import { createServer } from "node:net";
import { createInterface } from "node:readline";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";

export const REPO_ROOT = fileURLToPath(new URL("../..", import.meta.url));
export const CEI_BIN = fileURLToPath(new URL("../../bin/cei.js", import.meta.url));

/** `cei <args>` in another process; resolves with stdout, rejects on a non-zero exit. */
export async function cei(args: string[]): Promise<string> {
  const { stdout } = await promisify(execFile)(process.execPath, [CEI_BIN, ...args], { cwd: REPO_ROOT });
  return stdout;
}

export interface ChildServer {
  url: string;
  child: ChildProcess;
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  stderr(): string;
  /** Sends the signal and waits for the process to be gone. */
  stop(signal: NodeJS.Signals): Promise<void>;
}

/**
 * Starts a child and resolves once `ready` finds the server's URL in what it has printed so far;
 * rejects if the child exits first or takes longer than `timeoutMs`.
 */
export function startChildServer(
  args: string[],
  ready: (lines: readonly string[]) => string | undefined,
  env: NodeJS.ProcessEnv = process.env,
  timeoutMs = 30_000,
): Promise<ChildServer & { lines: string[] }> {
  const child = spawn(process.execPath, args, { cwd: REPO_ROOT, env, stdio: ["ignore", "pipe", "pipe"] });
  let stderr = "";
  child.stderr!.on("data", (chunk: Buffer) => { stderr += chunk.toString(); });
  const lines: string[] = [];
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) => {
    child.once("exit", (code, signal) => resolve({ code, signal }));
  });
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      child.kill("SIGKILL");
      reject(new Error(`child did not get ready in ${timeoutMs} ms: ${stderr}`));
    }, timeoutMs);
    createInterface({ input: child.stdout! }).on("line", (line) => {
      lines.push(line);
      const url = ready(lines);
      if (url === undefined) return;
      clearTimeout(timer);
      resolve({
        url,
        child,
        exited,
        lines,
        stderr: () => stderr,
        async stop(signal) {
          if (child.exitCode === null && child.signalCode === null) child.kill(signal);
          await exited;
        },
      });
    });
    void exited.then(({ code, signal }) => {
      clearTimeout(timer);
      reject(new Error(`child exited (${code ?? signal}) before it was ready: ${stderr}`));
    });
  });
}

/** `cei serve --port 0`: the port is learnt from the line it prints. `options` are more of serve's options. */
export function startCeiServe(snapshot: string, meter: string, options: string[] = []): Promise<ChildServer> {
  return startChildServer(
    [CEI_BIN, "serve", "--snapshot", snapshot, "--meter", meter, "--port", "0", "--host", "127.0.0.1", ...options],
    (lines) => /^cei serving .* on (http:\/\/127\.0\.0\.1:\d+)$/.exec(lines.at(-1)!)?.[1],
  );
}

export interface Answer {
  status: number;
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  body: any;
}

/** A keep-alive client for many concurrent requests to one server. */
export function keepAliveClient(baseUrl: string, maxSockets: number): { get(path: string, key: string): Promise<Answer>; close(): void } {
  const agent = new Agent({ keepAlive: true, maxSockets });
  return {
    get: (path, key) =>
      new Promise<Answer>((resolve, reject) => {
        const req = httpRequest(baseUrl + path, { agent, headers: { authorization: `Bearer ${key}` } }, (res) => {
          const chunks: Buffer[] = [];
          res.on("data", (chunk: Buffer) => chunks.push(chunk));
          res.on("end", () => {
            try {
              resolve({ status: res.statusCode!, body: JSON.parse(Buffer.concat(chunks).toString()) });
            } catch (error) {
              reject(error);
            }
          });
          res.on("error", reject);
        });
        req.on("error", reject);
        req.end();
      }),
    close: () => agent.destroy(),
  };
}

/** The metrics URL a `cei serve --metrics-port` child logged when it started listening. */
export function metricsUrlOf(server: ChildServer): string {
  const line = server.stderr().split("\n").find((text) => text.includes('"event":"listening"'));
  const url = line === undefined ? undefined : (JSON.parse(line) as { metrics_url?: string }).metrics_url;
  if (url === undefined) throw new Error(`no metrics URL in the log: ${server.stderr()}`);
  return url;
}

/** One sample's value from a Prometheus text page (0 when absent): `name` with its labels as written. */
export async function scrapeSample(metricsUrl: string, sample: string): Promise<number> {
  const text = await (await fetch(metricsUrl)).text();
  const line = text.split("\n").find((entry) => entry.startsWith(sample + " "));
  return line === undefined ? 0 : Number(line.slice(sample.length + 1));
}

/** A TCP port on 127.0.0.1 that was free a moment ago. */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}
