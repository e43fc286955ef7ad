import type { ObjectId } from "./ids";

/** Who a `/v2` request acts for: a user, in one company, through one session. */
export interface Principal {
  userId: string;
  companyId: string;
  sessionId: string;
  accessRoles: ObjectId[];
}
