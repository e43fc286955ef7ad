/**
 * A route handler as Next.js calls it, and which operation a handler made by `handle` serves: the
 * fuzzer, the route tests and the OpenAPI document test find an operation's handler by it
 * (docs/architecture.md#adding-an-operation).
 */
import type { Operation } from "@/lib/base/schemas/operation";

export type RouteParams = Promise<Record<string, string | string[] | undefined>>;

export type RouteHandler = (request: Request, context?: { params: RouteParams }) => Promise<Response>;

declare const answers: unique symbol;
/**
 * A handler bound to an operation by `handle`; its type also carries what a success answers (the
 * operation's response schema), for the route tests (lib/tools/testing/http.ts) to read it typed.
 */
export type BoundHandler<A> = RouteHandler & { readonly [answers]?: A };
/** What a success of the handler answers: `unknown` for one not bound to an operation. */
export type AnswerOf<H> = H extends BoundHandler<infer A> ? A : unknown;

const bound = new WeakMap<RouteHandler, Operation>();

/** Marks `handler` as the one serving `operation`. */
export function bind(handler: RouteHandler, operation: Operation): void {
  bound.set(handler, operation);
}

/** The operation a handler made by `handle` serves; `undefined` for any other. */
export function operationOf(handler: unknown): Operation | undefined {
  return typeof handler === "function" ? bound.get(handler as RouteHandler) : undefined;
}
