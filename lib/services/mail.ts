/**
 * Outgoing e-mail: through `nodemailer` to `SMTP_URL`, else into the outbox collection, where
 * the admin pages show it (docs/api.md#outbox).
 */
import nodemailer, { type Transporter } from "nodemailer";
import { loadConfig } from "@/lib/config";
import { OutboxMail } from "@/lib/models";
import type { ObjectId } from "./ids";
import { log } from "./log";

export interface Mail {
  to: string;
  subject: string;
  text: string;
  html?: string;
  /** The company on whose behalf it is sent (the outbox is shown per company). */
  company?: ObjectId;
}

export const MAIL_FROM = "Users & Surveys <no-reply@localhost>";

const transports = new Map<string, Transporter>();

export async function sendMail(mail: Mail): Promise<"sent" | "outbox"> {
  const { smtpUrl } = loadConfig();
  if (smtpUrl) {
    let transport = transports.get(smtpUrl);
    if (!transport) {
      transport = nodemailer.createTransport(smtpUrl);
      transports.set(smtpUrl, transport);
    }
    await transport.sendMail({ from: MAIL_FROM, to: mail.to, subject: mail.subject, text: mail.text, html: mail.html });
    log().info({ to: mail.to, subject: mail.subject }, "mail sent");
    return "sent";
  }
  await OutboxMail.create({
    company: mail.company ?? null,
    to: mail.to,
    subject: mail.subject,
    text: mail.text,
    html: mail.html ?? null,
    createdAt: new Date(),
  });
  return "outbox";
}
