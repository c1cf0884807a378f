// Batching per event-loop turn: everything submitted during one turn goes to the database as one
// statement (one round trip, one transaction). While `maxInFlight` batches are out, new work waits
// and leaves together when one returns, so a busier reader sends fewer, larger statements.

interface Waiting<In, Out> { input: In; resolve: (output: Out) => void; reject: (error: unknown) => void }

export class TurnBatches<In, Out> {
  readonly #run: (inputs: In[]) => Promise<Out[]>;
  readonly #maxInFlight: number;
  #pending: Array<Waiting<In, Out>> = [];
  #scheduled = false;
  #inFlight = 0;
  #idle: Array<() => void> = [];

  /** `run` answers one output per input, in the same order; when it rejects, every input of the batch fails. */
  constructor(run: (inputs: In[]) => Promise<Out[]>, maxInFlight: number) {
    this.#run = run;
    this.#maxInFlight = maxInFlight;
  }

  submit(input: In): Promise<Out> {
    return new Promise<Out>((resolve, reject) => {
      this.#pending.push({ input, resolve, reject });
      this.#schedule();
    });
  }

  /** Resolves once nothing is pending or in flight. */
  settled(): Promise<void> {
    if (this.#pending.length === 0 && this.#inFlight === 0) return Promise.resolve();
    return new Promise((resolve) => this.#idle.push(resolve));
  }

  #schedule(): void {
    if (this.#scheduled || this.#inFlight >= this.#maxInFlight || this.#pending.length === 0) return;
    this.#scheduled = true;
    setImmediate(this.#flush);
  }

  readonly #flush = (): void => {
    this.#scheduled = false;
    const batch = this.#pending;
    this.#pending = [];
    this.#inFlight += 1;
    this.#run(batch.map((waiting) => waiting.input)).then(
      (outputs) => batch.forEach((waiting, index) => waiting.resolve(outputs[index]!)),
      (error: unknown) => batch.forEach((waiting) => waiting.reject(error)),
    ).finally(() => {
      this.#inFlight -= 1;
      this.#schedule();
      if (this.#pending.length === 0 && this.#inFlight === 0) for (const resolve of this.#idle.splice(0)) resolve();
    });
  };
}
