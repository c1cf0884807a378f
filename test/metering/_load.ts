// Steady load on `cei serve` readers for the multi-process proofs: `concurrency` loops per reader,
// each sending the next request as soon as the last is answered, until stopped or the reader dies.
import { keepAliveClient, type Answer } from "../_support/processes.ts";

/** get_project (1 credit), search_people (2), get_event (1): no freshness bound on the real clock. */
const PATHS = ["/v1/projects/aurora-swap", "/v1/people/search?query=alice", "/v1/events/berlin-node-day"];
const CONNECTION_LOST = /ECONNRESET|ECONNREFUSED|socket hang up|EPIPE/;

export interface Load {
  /** Every answer so far, in arrival order. */
  answers: Answer[];
  /** Resolves when `count` more answers with this status have arrived. */
  next(status: number, count?: number): Promise<void>;
  /** Stops sending; resolves when every loop has ended. */
  stop(): Promise<void>;
  /** Resolves when every loop has ended because the reader's connections were lost. */
  lost(): Promise<void>;
}

export function startLoad(url: string, key: string, concurrency: number, pauseAfterErrorMs = 20, paths: readonly string[] = PATHS): Load {
  const client = keepAliveClient(url, concurrency);
  const answers: Answer[] = [];
  const waiters: Array<{ status: number; left: number; resolve: () => void }> = [];
  let stopped = false;
  const loop = async (index: number): Promise<boolean> => {
    for (let i = index; !stopped; i += concurrency) {
      let answer: Answer;
      try {
        answer = await client.get(paths[i % paths.length]!, key);
      } catch (error) {
        const code = `${(error as NodeJS.ErrnoException).code} ${(error as Error).message}`;
        if (CONNECTION_LOST.test(code)) return true;
        throw error;
      }
      answers.push(answer);
      for (const waiter of waiters) if (waiter.status === answer.status && --waiter.left === 0) waiter.resolve();
      // A reader answering errors at once would otherwise be asked as fast as it can answer.
      if (answer.status !== 200) await new Promise((resolve) => setTimeout(resolve, pauseAfterErrorMs));
    }
    return false;
  };
  const loops = Promise.all(Array.from({ length: concurrency }, (_, index) => loop(index)));
  return {
    answers,
    next: (status, count = 1) => new Promise((resolve) => { waiters.push({ status, left: count, resolve }); }),
    async stop() {
      stopped = true;
      await loops.catch(() => undefined);
      client.close();
    },
    lost: () => loops.then((ended) => {
      client.close();
      if (!ended.every(Boolean)) throw new Error("the load was stopped before the reader died");
    }),
  };
}
