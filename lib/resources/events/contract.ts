/**
 * Events (docs/api.md#events): every successful change of a user, a survey, reference data or an
 * API key, numbered per company in commit order, read oldest first by following `after`.
 */
import { isoDateTime, objectId, queryInt } from "@/lib/base/schemas/common";
import { EVENT_RESOURCES, EVENT_TYPES } from "@/lib/base/schemas/event-types";
import { type ComponentNames, operation, repeated } from "@/lib/base/schemas/operation";
import { z } from "zod";

const EventType = z.enum(EVENT_TYPES, { error: `must be one of ${EVENT_TYPES.join(", ")}` });

export const EventRecord = z.object({
  _id: objectId,
  type: EventType,
  resource: z.object({ type: z.enum(EVENT_RESOURCES), id: z.string() }),
  /** The changed field paths, dotted (`name.firstName`); for a create, the fields it set. */
  changes: z.array(z.string()),
  /** Who made the change: a user, or an API key of the company (`null` for the service itself). */
  actor: z.object({ type: z.enum(["user", "apiKey"]), id: z.string() }).nullable(),
  requestId: z.string().nullable(),
  createdAt: isoDateTime,
});
export type EventRecord = z.infer<typeof EventRecord>;

/** Events are few per page and cheap: up to 1000 per request, 100 unless asked. */
export const ListEventsQuery = z.object({
  after: objectId.optional(),
  type: z
    .array(EventType)
    .min(1)
    .max(EVENT_TYPES.length, { error: `at most ${EVENT_TYPES.length} values` })
    .optional(),
  limit: queryInt(1, 1000).default(100),
});
export type ListEventsQuery = z.infer<typeof ListEventsQuery>;

export const EventList = z.object({
  data: z.object({
    events: z.array(EventRecord),
    /** The `_id` of the last event of the page when more follow now, else `null`. */
    next: z.string().nullable(),
  }),
});
export type EventList = z.infer<typeof EventList>;

export const list = operation({
  method: "get",
  path: "/v2/events",
  scope: "events:read",
  admin: true,
  query: ListEventsQuery,
  nextParam: "after",
  doc: {
    tag: "Events",
    summary: "List events",
    description:
      "The company's events oldest first, in the order their changes committed. A reader passes the `_id` of the last event it has as `after` and never skips an event, even while others write (see Events in the API guide). `next` is the last event's `_id` when more follow now, else `null`: poll again with `after` set to the last event received. An `after` that names no event of the company (another company's, or one past the 90 days events are kept) is `400 invalid_request`.",
    status: 200,
    response: EventList,
    parameters: {
      after: { description: "The `_id` of the last event already read: the list starts after it." },
      type: { description: repeated("Only events of these types (`user.updated`...).") },
      limit: { description: "Events per page, 1 to 1000 (100 by default)." },
    },
  },
});

/** The names of this resource's schemas in the OpenAPI document. */
export const components: ComponentNames = { records: { Event: EventRecord }, answers: { EventList } };
