/** Bodies and answers of `/api/auth/*` (docs/api.md#tokens). */
import { isoDateTime, objectId, Password } from "@/lib/base/schemas/common";
import { z } from "zod";

export const LoginBody = z.strictObject({
  email: z
    .string()
    .trim()
    .min(1)
    .max(254)
    .transform((value) => value.toLowerCase()),
  password: z.string().min(1).max(1024),
  /** For a user of several companies: which one to act in (default: the first). */
  companyId: objectId.optional(),
});
export type LoginBody = z.infer<typeof LoginBody>;

export const AccessTokenResponse = z.object({ accessToken: z.string(), expiresAt: isoDateTime });
export type AccessTokenResponse = z.infer<typeof AccessTokenResponse>;

export const SetPasswordBody = z.strictObject({
  token: z.string().min(1).max(200),
  password: Password,
});
export type SetPasswordBody = z.infer<typeof SetPasswordBody>;

export const InvitationQuery = z.object({ token: z.string().min(1).max(200) });

export const InvitationStatus = z.object({ valid: z.boolean(), email: z.string().optional() });
export type InvitationStatus = z.infer<typeof InvitationStatus>;
