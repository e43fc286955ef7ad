/** The entry module of a read worker thread (started by lib/kernel/off-thread.ts). */
import { serveTasks } from "@/lib/kernel/db/workers";
import { readTasks } from "@/lib/platform/startup/read-tasks";

serveTasks(readTasks);
