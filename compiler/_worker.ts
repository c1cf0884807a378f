// Worker thread entry: runs the one job it is given (see workers.ts).
import { parentPort, workerData } from "node:worker_threads";
import { runJob, type WorkerJob, type WorkerMessage } from "./workers.ts";

const post = (message: WorkerMessage) => parentPort!.postMessage(message);
post({ done: runJob(workerData as WorkerJob, (progress) => post({ progress })) });
