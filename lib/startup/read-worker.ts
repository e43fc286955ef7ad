/** The entry module of a read worker thread (started by lib/server/off-thread.ts). */
import { serveTasks } from "@/lib/db/workers";
import { readTasks } from "@/lib/startup/read-tasks";

serveTasks(readTasks);
