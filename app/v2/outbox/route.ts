import { otherMethods, route } from "@/lib/http/route";
import { ListOutboxQuery } from "@/lib/schemas/outbox";
import { listOutbox } from "@/lib/services/outbox";

export const runtime = "nodejs";
export const dynamic = "force-dynamic";

/** The e-mails kept while SMTP_URL is unset, newest first (Admin). */
export const GET = route({ admin: true, query: ListOutboxQuery }, ({ auth, query }) => listOutbox(auth, query));

export const { OPTIONS, POST, PUT, PATCH, DELETE } = otherMethods({ GET });
