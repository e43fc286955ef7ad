/** Reading the outbox of the caller's company (the e-mails `sendMail` kept; see mail.ts). */
import { OutboxMail } from "@/lib/models";
import { findDocs, pageWindow } from "@/lib/models/read";
import type { ListOutboxQuery, OutboxList } from "@/lib/schemas/outbox";
import type { Principal } from "./auth";
import { oid, type ObjectId } from "./ids";

interface OutboxDoc {
  _id: ObjectId;
  to: string;
  subject: string;
  text: string;
  html: string | null;
  createdAt: Date;
}

export async function listOutbox(auth: Principal, query: ListOutboxQuery): Promise<OutboxList> {
  const filter: Record<string, unknown> = { company: oid(auth.companyId) };
  if (query.to) filter.to = query.to.toLowerCase();
  const [docs, counter] = await Promise.all([
    findDocs<OutboxDoc>(OutboxMail, filter, { sort: { createdAt: -1, _id: -1 }, ...pageWindow(query) }),
    query.count ? OutboxMail.countDocuments(filter) : undefined,
  ]);
  return {
    data: {
      mails: docs.map((doc) => ({
        _id: doc._id.toHexString(),
        to: doc.to,
        subject: doc.subject,
        text: doc.text,
        html: doc.html ?? null,
        createdAt: doc.createdAt.toISOString(),
      })),
      page: query.page,
      limit: query.limit,
      ...(counter === undefined ? {} : { counter }),
    },
  };
}
