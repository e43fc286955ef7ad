/**
 * The kinds of records whose changes raise events, and the event types they make
 * (docs/api.md#events): `<resource>.created`, `.updated` and `.deleted`.
 */
export const EVENT_RESOURCES = [
  "user",
  "survey",
  "accessRole",
  "jobTitle",
  "property",
  "bot",
  "apiKey",
  "webhook",
] as const;
export type EventResource = (typeof EVENT_RESOURCES)[number];

export const EVENT_ACTIONS = ["created", "updated", "deleted"] as const;
export type EventAction = (typeof EVENT_ACTIONS)[number];

export const EVENT_TYPES = EVENT_RESOURCES.flatMap((resource) =>
  EVENT_ACTIONS.map((action) => `${resource}.${action}` as const),
);
