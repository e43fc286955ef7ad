/**
 * The outbox (docs/api.md#outbox): e-mails kept instead of sent while `SMTP_URL` is unset, listed for
 * the admin pages by `GET /v2/outbox` (Admin), newest first, paged like every list.
 */
import { isoDateTime, listEnvelope, objectId, pagingQuery } from "@/lib/base/schemas/common";
import { z } from "zod";

export const OutboxMailRecord = z.object({
  _id: objectId,
  to: z.string(),
  subject: z.string(),
  text: z.string(),
  html: z.string().nullable(),
  createdAt: isoDateTime,
});
export type OutboxMailRecord = z.infer<typeof OutboxMailRecord>;

export const ListOutboxQuery = z.object({
  ...pagingQuery(20, 100),
  /** Only the mails to this address (case-insensitive, exact). */
  to: z.string().trim().min(1).max(254).optional(),
});
export type ListOutboxQuery = z.infer<typeof ListOutboxQuery>;

export const OutboxList = listEnvelope("mails", OutboxMailRecord);
export type OutboxList = z.infer<typeof OutboxList>;
