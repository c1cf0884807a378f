// Source values as staging values (SQLite's JSON semantics): booleans are 0/1, absent or null
// values are NULL, a missing list has no items.
import type { Json } from "./define.ts";

export const bit = (value: unknown): number => (value === true ? 1 : 0);
export const list = (value: unknown): Json[] => (Array.isArray(value) ? (value as Json[]) : []);
export const nullable = (value: unknown): unknown => value ?? null;
