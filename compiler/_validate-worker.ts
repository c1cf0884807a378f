// Worker thread: validates line batches in the order they arrive (see read-sources.ts).
import { parentPort, workerData } from "node:worker_threads";
import { validateBatch, type LineBatch } from "./validate-lines.ts";

const xSecret = (workerData as { xSecret: string | undefined }).xSecret;
parentPort!.on("message", (batch: LineBatch) => parentPort!.postMessage(validateBatch(batch, xSecret)));
