/**
 * The scopes of API keys (docs/api.md#api-keys): each authenticated operation declares the one it
 * needs in its contract, and a key's request outside its scopes is `403 insufficient_scope`.
 */
import { z } from "zod";

export const SCOPES = [
  "users:read",
  "users:write",
  "surveys:read",
  "surveys:write",
  "reference:read",
  "reference:write",
  "events:read",
  "webhooks:write",
  "api-keys:write",
] as const;

export const Scope = z.enum(SCOPES);
export type Scope = z.infer<typeof Scope>;

/** What each scope allows, for the OpenAPI document and the admin page. */
export const SCOPE_DESCRIPTIONS: Record<Scope, string> = {
  "users:read": "Read users (and the outbox of their invitations)",
  "users:write": "Create and change users",
  "surveys:read": "Read surveys and their revisions",
  "surveys:write": "Create and change surveys",
  "reference:read": "Read access roles, job titles, properties and bots",
  "reference:write": "Create access roles, job titles, properties and bots",
  "events:read": "Read the events of changes",
  "webhooks:write": "Manage webhooks",
  "api-keys:write": "List, create and revoke API keys",
};
