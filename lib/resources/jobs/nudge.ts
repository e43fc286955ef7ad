/**
 * Wakes this process's job runner (./runner.ts) at once when a request queued a job, instead of at
 * its next poll.
 */
import { nudgeChannel } from "@/lib/kernel/background-loop";

export const jobNudges = nudgeChannel("jobs");

export const nudgeJobs = (): void => jobNudges.nudge();
