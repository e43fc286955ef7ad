/**
 * A fixed piece of CPU work timed in the benchmark's own process: the same JavaScript, BSON and
 * sorting the database does, on the same data every time. Printed beside a benchmark's figures,
 * it says how fast the machine ran at that moment, so that figures taken hours apart on a shared
 * machine can be told apart from changes of the code (docs/benchmarks.md#the-yardstick).
 */
import { BSON } from "bson";

const DOCS = 2_000;
const ROUNDS = 10;

function work(): number {
  let checksum = 0;
  for (let round = 0; round < ROUNDS; round++) {
    const keys: string[] = [];
    for (let n = 0; n < DOCS; n++) {
      const doc = {
        _id: n,
        email: `user.${n}@yardstick.example`,
        name: { names: "Ana", lastName: `García ${n % 97}` },
        tags: [n % 7, n % 11, n % 13],
        at: new Date(1_700_000_000_000 + n),
      };
      const back = BSON.deserialize(BSON.serialize(doc));
      keys.push(`${back.name.lastName}\u0000${back.email}`);
    }
    keys.sort();
    checksum += keys[DOCS >> 1].length;
  }
  return checksum;
}

/** Milliseconds of the yardstick's work: the least of `runs` timings (noise only adds). */
export function yardstickMs(runs = 5): number {
  let best = Infinity;
  for (let run = 0; run < runs; run++) {
    const started = performance.now();
    if (work() <= 0) throw new Error("the yardstick computed nothing");
    best = Math.min(best, performance.now() - started);
  }
  return best;
}
