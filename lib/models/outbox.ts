import { Schema } from "mongoose";
import { defineModel, ObjectId, schemaOptions } from "./define";

/** E-mails kept instead of sent when `SMTP_URL` is unset (docs/api.md#outbox). */
const outboxSchema = new Schema(
  {
    company: { type: ObjectId, default: null },
    to: { type: String, required: true },
    subject: { type: String, required: true },
    text: { type: String, required: true },
    html: { type: String, default: null },
    createdAt: { type: Date, required: true },
  },
  { ...schemaOptions, collection: "outbox" },
);
outboxSchema.index({ company: 1, createdAt: 1, _id: 1 });
outboxSchema.index({ to: 1 });

export const OutboxMail = defineModel("SvcOutboxMail", outboxSchema);
