/**
 * The scopes of API keys (docs/api.md#api-keys, the table in docs/security.md#scopes): each
 * authenticated operation declares the one it needs in its contract, and a key's request outside
 * its scopes is `403 insufficient_scope`. Some acts need a second scope checked by the service
 * itself (`admin`, `answers:*`, `views:write`, see docs/security.md#scopes).
 */
import { z } from "zod";

export const SCOPES = [
  "users:read",
  "users:write",
  "surveys:read",
  "surveys:write",
  "answers:read",
  "answers:write",
  "reference:read",
  "reference:write",
  "views:write",
  "events:read",
  "audit:read",
  "webhooks:write",
  "api-keys:write",
  "metrics:read",
  "admin",
] as const;

export const Scope = z.enum(SCOPES);
export type Scope = z.infer<typeof Scope>;

/** What each scope allows, for the OpenAPI document and the admin page. */
export const SCOPE_DESCRIPTIONS: Record<Scope, string> = {
  "users:read": "Read users",
  "users:write": "Create and change users (never admin roles, passwords or an admin's account: those need admin)",
  "surveys:read": "Read surveys and their revisions",
  "surveys:write": "Create and change surveys",
  "answers:read": "Read a survey's answers and results, as the survey's permissions allow",
  "answers:write": "Submit, change and delete a survey's answers, as the survey's permissions allow",
  "reference:read": "Read access roles, job titles, properties and bots",
  "reference:write":
    "Create and change access roles, job titles, properties and bots (never a role's isAdmin: that needs admin)",
  "views:write": "Moderate the views other members shared",
  "events:read": "Read the events of changes",
  "audit:read": "Read the audit log (values before and after each change, sign-ins)",
  "webhooks:write": "Manage webhooks",
  "api-keys:write": "List, create and revoke API keys",
  "metrics:read": "Read the service's metrics (GET /metrics)",
  admin:
    "Dangerous: admin power (grant or take admin roles, change a role's isAdmin, set passwords, change an admin's account)",
};
