/**
 * Outgoing e-mail: through `nodemailer` to `SMTP_URL`, else into the outbox collection, where
 * the admin pages show it (docs/api.md#outbox), newest first, for the caller's company.
 */
import { loadConfig } from "@/lib/base/config";
import { listScope, pageFields, pageOf, pageRead, withCondition, type ListOrder } from "@/lib/kernel/cursor";
import { oid, type ObjectId } from "@/lib/kernel/ids";
import { log } from "@/lib/kernel/log";
import type { Principal } from "@/lib/kernel/principal";
import type { ListOutboxQuery, OutboxList } from "@/lib/resources/mail/schemas";
import nodemailer, { type Transporter } from "nodemailer";
import { countOutboxMails, findOutboxMails, insertOutboxMail } from "./repository";

export interface Mail {
  to: string;
  subject: string;
  text: string;
  html?: string;
  /** The company on whose behalf it is sent (the outbox is shown per company). */
  company?: ObjectId;
}

/** The sender: `no-reply@` the host of PUBLIC_URL (docs/deployment.md#public_url). */
const mailFrom = () => `Users & Surveys <no-reply@${new URL(loadConfig().publicUrl).hostname.replace(/^\[|\]$/g, "")}>`;

const transports = new Map<string, Transporter>();

export async function sendMail(mail: Mail): Promise<"sent" | "outbox"> {
  const { smtpUrl } = loadConfig();
  if (smtpUrl) {
    let transport = transports.get(smtpUrl);
    if (!transport) {
      transport = nodemailer.createTransport(smtpUrl);
      transports.set(smtpUrl, transport);
    }
    await transport.sendMail({
      from: mailFrom(),
      to: mail.to,
      subject: mail.subject,
      text: mail.text,
      html: mail.html,
    });
    log().info({ to: mail.to, subject: mail.subject }, "mail sent");
    return "sent";
  }
  await insertOutboxMail({
    company: mail.company ?? null,
    to: mail.to,
    subject: mail.subject,
    text: mail.text,
    html: mail.html ?? null,
    createdAt: new Date(),
  });
  return "outbox";
}

export async function listOutbox(auth: Principal, query: ListOutboxQuery): Promise<OutboxList> {
  const filter: Record<string, unknown> = { company: oid(auth.companyId) };
  if (query.to) filter.to = query.to.toLowerCase();
  const scope = listScope(auth.companyId, "/v2/outbox", query);
  const read = await pageRead(query, OUTBOX_ORDER, scope);
  const [docs, counter] = await Promise.all([
    findOutboxMails(withCondition(filter, read.after), { sort: read.sort, skip: read.skip, limit: read.limit }),
    query.count ? countOutboxMails(filter) : undefined,
  ]);
  const page = await pageOf(docs, query, OUTBOX_ORDER, scope, (doc) => [doc.createdAt, doc._id]);
  return {
    data: {
      mails: page.items.map((doc) => ({
        _id: doc._id.toHexString(),
        to: doc.to,
        subject: doc.subject,
        text: doc.text,
        html: doc.html ?? null,
        createdAt: doc.createdAt.toISOString(),
      })),
      ...pageFields(query, page, counter),
    },
  };
}

/** Newest first, `_id` breaking ties. */
const OUTBOX_ORDER: ListOrder = {
  fields: [
    { name: "createdAt", type: "date" },
    { name: "_id", type: "objectId" },
  ],
  direction: -1,
};
