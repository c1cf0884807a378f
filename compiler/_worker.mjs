// Worker entry in plain JavaScript: a worker does not inherit the parent's TypeScript loader,
// so it registers tsx itself before loading the worker module.
import { register } from "tsx/esm/api";

register();
await import("./_worker.ts");
