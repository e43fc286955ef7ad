/**
 * How `npm run bench:api` turns load runs into figures that hold on a shared, noisy machine.
 *
 * A case is not compared with one floor run taken minutes earlier: the speed of a shared machine
 * drifts that fast (the floor has been seen at 506 and 703 req/s in one run). Instead each case
 * runs in `rounds` slices, each right after a slice of the floor, and its "% of floor" is the
 * median of the rounds' ratios; req/s is the mean of its slices, p50 and p99 their medians.
 */
import type autocannon from "autocannon";

/** What one load run of a case measured. */
export interface Slice {
  rps: number;
  p50: number;
  p99: number;
  errors: number;
}

export interface Figures extends Slice {
  name: string;
  /** Its req/s over the floor's, as the median of the rounds' ratios (1 for the floor itself). */
  ofFloor: number;
}

/** The floor of one table: measured a slice at a time, next to every case of the table. */
export class Floor {
  private readonly slices: Slice[] = [];

  constructor(
    readonly name: string,
    private readonly measure: () => Promise<Slice>,
  ) {}

  async slice(): Promise<Slice> {
    const slice = await this.measure();
    this.slices.push(slice);
    return slice;
  }

  /** The floor's own row: every slice it ran for the table. */
  figures(): Figures {
    return { name: this.name, ...combine(this.slices), ofFloor: 1 };
  }
}

/** Load cases of one table, each alternated with slices of its floor (made by lib/tools/bench/api.ts). */
export interface BenchTable {
  floor: Floor;
  /** One autocannon case (warm-up, then the rounds). */
  measure: (name: string, options: autocannon.Options) => Promise<Figures>;
  /** The same concurrency through the driver, no HTTP. */
  driver: (name: string, query: () => Promise<unknown>) => Promise<Figures>;
}

/** Runs `measure` `rounds` times, each right after a slice of the floor. */
export async function alternate(
  name: string,
  rounds: number,
  floor: Floor,
  measure: () => Promise<Slice>,
): Promise<Figures> {
  const slices: Slice[] = [];
  const ratios: number[] = [];
  for (let round = 0; round < rounds; round++) {
    const base = await floor.slice();
    const slice = await measure();
    slices.push(slice);
    ratios.push(base.rps > 0 ? slice.rps / base.rps : 0);
  }
  return { name, ...combine(slices), ofFloor: median(ratios) };
}

function combine(slices: Slice[]): Slice {
  return {
    rps: slices.reduce((sum, slice) => sum + slice.rps, 0) / Math.max(1, slices.length),
    p50: median(slices.map((slice) => slice.p50)),
    p99: median(slices.map((slice) => slice.p99)),
    errors: slices.reduce((sum, slice) => sum + slice.errors, 0),
  };
}

function median(values: number[]): number {
  if (values.length === 0) return 0;
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2;
}

/** The table of a report: one row per case, the floor first. */
export function table(results: Figures[]): string[] {
  const width = Math.max(...results.map((r) => r.name.length));
  const ms = (value: number) => String(Math.round(value * 10) / 10).padStart(7);
  return [
    `${"case".padEnd(width)}  ${"req/s".padStart(8)}  ${"p50 ms".padStart(7)}  ${"p99 ms".padStart(7)}  ${"% of floor".padStart(10)}  failed`,
    ...results.map(
      (r) =>
        `${r.name.padEnd(width)}  ${r.rps.toFixed(0).padStart(8)}  ${ms(r.p50)}  ${ms(r.p99)}  ${`${(100 * r.ofFloor).toFixed(0)}%`.padStart(10)}  ${r.errors}`,
    ),
  ];
}

export const target = (label: string, met: boolean) => `  ${met ? "met    " : "NOT met"}  ${label}`;
