// The TypeScript client of the API (clients/typescript/README.md).
export { CeiClient, createCeiClient, type CeiClientOptions, type OperationId, type Params, type RetryEvent, type Success } from "./client.ts";
export * from "./errors.ts";
export type { components, operations, paths } from "./api.d.ts";
