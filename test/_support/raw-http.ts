// One raw TCP connection to the server, for what fetch and node:http hide: partial or malformed
// requests, bytes sent slowly, chunked bodies in chosen pieces, several requests on one
// keep-alive connection, and whether the server closed the connection.
import { connect, type Socket } from "node:net";

export interface RawResponse {
  status: number;
  /** Header names in lower case. */
  headers: Record<string, string>;
  body: string;
}

export class RawConnection {
  readonly socket: Socket;
  /** Resolves when the server has closed (or reset) the connection. */
  readonly closed: Promise<void>;
  #buffer = Buffer.alloc(0);
  #waiting: (() => void) | undefined;
  #ended = false;

  private constructor(socket: Socket) {
    this.socket = socket;
    socket.on("data", (chunk: Buffer) => {
      this.#buffer = Buffer.concat([this.#buffer, chunk]);
      this.#waiting?.();
    });
    socket.on("error", () => undefined);
    this.closed = new Promise((resolve) => {
      socket.once("close", () => {
        this.#ended = true;
        this.#waiting?.();
        resolve();
      });
    });
  }

  /** `localAddress` picks the source address (any of 127.0.0.0/8 is loopback): another client. */
  static open(baseUrl: string, localAddress?: string): Promise<RawConnection> {
    const { hostname, port } = new URL(baseUrl);
    return new Promise((resolve, reject) => {
      const socket = connect({ port: Number(port), host: hostname, ...(localAddress === undefined ? {} : { localAddress }) });
      socket.once("connect", () => resolve(new RawConnection(socket)));
      socket.once("error", reject);
    });
  }

  write(data: string | Buffer): Promise<void> {
    return new Promise((resolve, reject) => this.socket.write(data, (error) => (error ? reject(error) : resolve())));
  }

  /** The next whole response (interim 1xx responses skipped), or "closed" if the connection ends first. */
  async nextResponse(timeoutMs = 5_000): Promise<RawResponse | "closed"> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const parsed = this.#take();
      if (parsed !== undefined && parsed.status >= 200) return parsed;
      if (parsed !== undefined) continue;
      if (this.#ended) return "closed";
      const left = deadline - Date.now();
      if (left <= 0) throw new Error(`no response within ${timeoutMs} ms; received: ${this.#buffer.toString("latin1").slice(0, 200)}`);
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, left);
        this.#waiting = () => {
          clearTimeout(timer);
          resolve();
        };
      });
      this.#waiting = undefined;
    }
  }

  /** Everything received and not yet taken as a response. */
  pending(): string {
    return this.#buffer.toString("latin1");
  }

  destroy(): void {
    this.socket.destroy();
  }

  #take(): RawResponse | undefined {
    const end = this.#buffer.indexOf("\r\n\r\n");
    if (end === -1) return undefined;
    const [statusLine, ...lines] = this.#buffer.subarray(0, end).toString("latin1").split("\r\n");
    const headers: Record<string, string> = {};
    for (const line of lines) {
      const colon = line.indexOf(":");
      headers[line.slice(0, colon).trim().toLowerCase()] = line.slice(colon + 1).trim();
    }
    const length = Number(headers["content-length"] ?? 0);
    if (this.#buffer.length < end + 4 + length) return undefined;
    const body = this.#buffer.subarray(end + 4, end + 4 + length).toString("utf8");
    this.#buffer = this.#buffer.subarray(end + 4 + length);
    return { status: Number(/^HTTP\/1\.[01] (\d{3})/.exec(statusLine!)?.[1]), headers, body };
  }
}

/** Opens connections and destroys every one of them when the test ends. */
export function connectionPool(): { open(baseUrl: string, localAddress?: string): Promise<RawConnection>; destroyAll(): void } {
  const open: RawConnection[] = [];
  return {
    async open(baseUrl, localAddress) {
      const connection = await RawConnection.open(baseUrl, localAddress);
      open.push(connection);
      return connection;
    },
    destroyAll() {
      for (const connection of open.splice(0)) connection.destroy();
    },
  };
}

/** A chunked transfer encoding of `size` bytes of `fill`, in `pieces` chunks of about equal size. */
export function chunkedPieces(size: number, pieces: number, fill = "a"): string[] {
  const out: string[] = [];
  const each = Math.ceil(size / pieces);
  for (let left = size; left > 0; left -= each) {
    const n = Math.min(each, left);
    out.push(`${n.toString(16)}\r\n${fill.repeat(n)}\r\n`);
  }
  out.push("0\r\n\r\n");
  return out;
}
