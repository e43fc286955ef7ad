/** What a benchmark reads of the processes it started, from Linux's /proc (nothing elsewhere). */
import { readdirSync, readFileSync } from "node:fs";

/** The process and its descendants, from /proc/<pid>/task/<tid>/children. */
export function processTree(pid: number): number[] {
  const all = [pid];
  for (let i = 0; i < all.length; i++) {
    try {
      for (const task of readdirSync(`/proc/${all[i]}/task`)) {
        const children = readFileSync(`/proc/${all[i]}/task/${task}/children`, "utf8").trim();
        if (children) all.push(...children.split(/\s+/).map(Number));
      }
    } catch {
      // The process ended between two reads.
    }
  }
  return all;
}

/** The resident memory of one process, in kB (0 once it has ended). */
export function rssKb(pid: number): number {
  try {
    const match = /^VmRSS:\s+(\d+) kB/m.exec(readFileSync(`/proc/${pid}/status`, "utf8"));
    return match ? Number(match[1]) : 0;
  } catch {
    return 0;
  }
}

/** CPU seconds used so far by a process and its descendants (0 for none). */
export function cpuSeconds(pid: number | undefined): number {
  if (pid === undefined) return 0;
  return processTree(pid).reduce((sum, each) => {
    try {
      const fields = readFileSync(`/proc/${each}/stat`, "utf8").split(") ")[1].split(" ");
      return sum + (Number(fields[11]) + Number(fields[12])) / 100;
    } catch {
      return sum;
    }
  }, 0);
}
