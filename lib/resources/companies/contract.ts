/** The company: the tenant every record belongs to (docs/api.md#companies-and-bootstrap). */
import { z } from "zod";
import { isoDateTime, objectId, singleLineText } from "@/lib/base/schemas/common";

export const CompanyRecord = z.object({
  _id: objectId,
  name: z.string(),
  createdAt: isoDateTime,
  modifiedAt: isoDateTime,
});
export type CompanyRecord = z.infer<typeof CompanyRecord>;

export const CompanyName = singleLineText({ min: 1, max: 200 });
