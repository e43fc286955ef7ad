/** The company: the tenant every record belongs to (docs/api.md#companies-and-bootstrap). */
import { isoDateTime, objectId, singleLineText } from "@/lib/base/schemas/common";
import { type ComponentNames, operation } from "@/lib/base/schemas/operation";
import { canonicalTimeZone, DEFAULT_TIME_ZONE } from "@/lib/base/shared/days";
import { z } from "zod";

export const CompanyRecord = z.object({
  _id: objectId,
  name: z.string(),
  createdAt: isoDateTime,
  modifiedAt: isoDateTime,
});
export type CompanyRecord = z.infer<typeof CompanyRecord>;

export const CompanyName = singleLineText({ min: 1, max: 200 });

// ---------------------------------------------------------------------------------------------
// The caller's company and its settings (docs/api.md#days)

/** An IANA time zone `Intl` knows, stored by its canonical name (`utc` → `UTC`). */
export const TimeZone = z
  .string({ error: "must be an IANA time zone name such as Europe/Paris" })
  .transform((name, ctx) => {
    const known = canonicalTimeZone(name);
    if (!known) {
      ctx.addIssue({ code: "custom", message: "must be an IANA time zone name such as Europe/Paris" });
      return z.NEVER;
    }
    return known;
  })
  .meta({
    description: "An IANA time zone name, such as `Europe/Paris`, `America/Los_Angeles` or `UTC`.",
    type: "string",
  });

export const CompanySettings = z.object({
  _id: objectId,
  name: z.string(),
  /** The zone a day of every date filter is in (docs/api.md#days). */
  timeZone: z.string(),
  modifiedAt: isoDateTime,
});
export type CompanySettings = z.infer<typeof CompanySettings>;

export const UpdateCompanyBody = z.strictObject({
  name: CompanyName.optional(),
  timeZone: TimeZone.optional(),
});
export type UpdateCompanyBody = z.infer<typeof UpdateCompanyBody>;

export const read = operation({
  method: "get",
  path: "/v2/company",
  scope: "reference:read",
  doc: {
    tag: "Reference data",
    summary: "Read the caller's company and its settings",
    description: `\`timeZone\` (default \`${DEFAULT_TIME_ZONE}\`) is the zone in which the admin pages read a day of every date filter: "25 November" is that day's midnight to the next midnight there (docs: Days).`,
    status: 200,
    response: CompanySettings,
  },
});

export const update = operation({
  method: "patch",
  path: "/v2/company",
  scope: "reference:write",
  admin: true,
  body: UpdateCompanyBody,
  doc: {
    tag: "Reference data",
    summary: "Change the caller's company's settings",
    description:
      "`name` and `timeZone`, an IANA name `Intl` knows (stored by its canonical name; anything else is `400`). Only the caller's company can change.",
    status: 200,
    response: CompanySettings,
  },
});

/** The names of this resource's schemas in the OpenAPI document. */
export const components: ComponentNames = {
  records: { CompanySettings },
  answers: { CompanySettingsAnswer: CompanySettings },
};
