/** The outbox operation bound to its service: what app/v2/outbox/route.ts exports. */
import { handle } from "@/lib/http/route";
import { listOutbox } from "@/lib/mail/service";
import * as outbox from "@/lib/mail/contract";

export const list = handle(outbox.list, ({ auth, query }) => listOutbox(auth, query));
