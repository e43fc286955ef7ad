import { AsyncLocalStorage } from "node:async_hooks";
import type { Principal } from "./principal";

/**
 * What a change made during a request records about it (events, audit): the request id and who
 * acted. Carried by AsyncLocalStorage so that services stay free of HTTP; work that outlives its
 * request (a job) runs inside the context it was started in.
 */
export interface RequestContext {
  requestId: string;
  principal?: Principal;
  ip?: string;
  userAgent?: string;
}

const storage = new AsyncLocalStorage<RequestContext>();

export const withRequestContext = <T>(context: RequestContext, work: () => T): T => storage.run(context, work);

export const requestContext = (): RequestContext | undefined => storage.getStore();

/** Who acts: an API key, or a user (a request without a principal acts for nobody). */
export function actorOf(principal: Principal | undefined): { type: "user" | "apiKey"; id: string } | null {
  if (!principal) return null;
  return principal.apiKey ? { type: "apiKey", id: principal.apiKey.id } : { type: "user", id: principal.userId };
}
