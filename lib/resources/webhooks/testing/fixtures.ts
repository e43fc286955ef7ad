/**
 * What the webhook tests share: a receiver on 127.0.0.1 (allowed by `WEBHOOK_ALLOWED_HOSTS`,
 * docs/api.md#webhooks) and an event committed as a change commits it.
 */
import { inTransaction } from "@/lib/kernel/db/transaction";
import { oid } from "@/lib/kernel/ids";
import { appendEvent } from "@/lib/resources/events/repository";
import { createServer, type IncomingHttpHeaders, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";

interface Received {
  /** The request's target: path and query as sent. */
  url: string;
  headers: IncomingHttpHeaders;
  body: string;
}

export interface Receiver {
  url: string;
  /** Each request, once its body has arrived, in order. */
  received: Received[];
  /** Stops listening and drops the requests left unanswered. */
  close(): Promise<void>;
}

/** Records each request and answers the n-th (1-based) with `answer(n)`, or never when that is `null`. */
export async function receiver(answer: (n: number) => number | null = () => 200): Promise<Receiver> {
  const received: Received[] = [];
  const held: ServerResponse[] = [];
  const server = createServer((request, response) => {
    let body = "";
    request.on("data", (chunk: Buffer) => (body += chunk.toString()));
    request.on("end", () => {
      received.push({ url: request.url ?? "", headers: request.headers, body });
      const status = answer(received.length);
      if (status === null) {
        held.push(response);
        return;
      }
      response.statusCode = status;
      response.end("ok");
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/hook`,
    received,
    close: () =>
      new Promise<void>((resolve) => {
        for (const response of held) response.destroy();
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** Commits an event of `type` about resource `id`, made by the tenant's admin. */
export function happen(tenant: { companyId: string; adminId: string }, type: string, id = "u1") {
  return inTransaction(() =>
    appendEvent({
      company: oid(tenant.companyId),
      type,
      resource: { type: type.split(".")[0], id },
      changes: ["phone"],
      actor: { type: "user", id: tenant.adminId },
      requestId: "req-1",
      createdAt: new Date(),
    }),
  );
}
