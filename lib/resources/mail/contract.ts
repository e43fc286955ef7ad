/** The outbox operation of the HTTP API: e-mails kept while no SMTP server is configured. */
import { type ComponentNames, operation, pagingParameters } from "@/lib/base/schemas/operation";
import { ListOutboxQuery, OutboxList, OutboxMailRecord } from "@/lib/resources/mail/schemas";

/** The e-mails kept while SMTP_URL is unset, newest first (Admin). */
export const list = operation({
  method: "get",
  path: "/v2/outbox",
  // Invitation links in its mails are credentials: no API key reads them (docs/security.md#scopes).
  scope: null,
  admin: true,
  query: ListOutboxQuery,
  doc: {
    tag: "Outbox",
    summary: "List the outbox",
    description:
      "The e-mails the service kept instead of sending while `SMTP_URL` is unset (invitations), newest first, for the caller's company. For signed-in admins only: its invitation links are credentials (whoever holds one sets the invitee's password), so an API key gets `403 insufficient_scope` (\"not open to API keys\") whatever its scopes.",
    status: 200,
    response: OutboxList,
    parameters: {
      ...pagingParameters,
      to: { description: "Only the e-mails to this address (case-insensitive, exact)." },
    },
  },
});

/** The names of this resource's schemas in the OpenAPI document. */
export const components: ComponentNames = { records: { OutboxMail: OutboxMailRecord }, answers: { OutboxList } };
