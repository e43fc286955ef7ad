/** The entry module of a read worker thread (started by lib/services/off-thread.ts). */
import { serveTasks } from "@/lib/db/workers";
import { readTasks } from "./read-tasks";

serveTasks(readTasks);
