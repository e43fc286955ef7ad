/** The outbox operation bound to its service: what app/v2/outbox/route.ts exports. */
import { handle } from "@/lib/http/route";
import { listOutbox } from "./service";
import * as outbox from "./contract";

export const list = handle(outbox.list, ({ auth, query }) => listOutbox(auth, query));
