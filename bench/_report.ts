// Printing: plain aligned tables on stdout, and the targets checked against their limits. The same
// figures go to bench/results.json.
import { cpus, totalmem } from "node:os";

export interface Target {
  /** e.g. "http: cei throughput / raw". */
  name: string;
  value: number;
  /** `value` must be at most (`max`) or at least (`min`) this. */
  limit: number;
  kind: "max" | "min";
  met: boolean;
  unit: string;
}

export function target(name: string, value: number, kind: "max" | "min", limit: number, unit = ""): Target {
  const met = kind === "max" ? value <= limit : value >= limit;
  return { name, value, kind, limit, met, unit };
}

export interface Table {
  title: string;
  header: string[];
  rows: (string | number)[][];
}

export function formatTable(table: Table): string {
  const cells = [table.header, ...table.rows.map((row) => row.map(String))];
  const widths = table.header.map((_, i) => Math.max(...cells.map((row) => (row[i] ?? "").length)));
  const line = (row: string[]) => row.map((cell, i) => (i === 0 ? cell.padEnd(widths[i]!) : cell.padStart(widths[i]!))).join("  ");
  return [table.title, line(table.header), widths.map((w) => "-".repeat(w)).join("  "), ...cells.slice(1).map(line)].join("\n");
}

export function formatTargets(targets: readonly Target[]): Table {
  return {
    title: "Targets",
    header: ["target", "value", "limit", "met"],
    rows: targets.map((t) => [t.name, `${fixed(t.value)}${t.unit}`, `${t.kind === "max" ? "<=" : ">="} ${fixed(t.limit)}${t.unit}`, t.met ? "yes" : "NO"]),
  };
}

/** Two decimals below 10, one below 100, none above: enough for every figure here. */
export function fixed(value: number): string {
  if (!Number.isFinite(value)) return String(value);
  const abs = Math.abs(value);
  return value.toFixed(abs < 10 ? 2 : abs < 100 ? 1 : 0);
}

export const mib = (bytes: number): number => bytes / (1024 * 1024);

export function machineDescription(): { cpus: number; model: string; memoryGiB: number; node: string; platform: string } {
  const list = cpus();
  return {
    cpus: list.length,
    model: list[0]?.model.trim() ?? "unknown",
    memoryGiB: Math.round(totalmem() / 2 ** 30),
    node: process.version,
    platform: `${process.platform} ${process.arch}`,
  };
}

/** What every section returns: its tables, its targets, and its figures for results.json. */
export interface SectionResult {
  tables: Table[];
  targets: Target[];
  figures: Record<string, unknown>;
}
