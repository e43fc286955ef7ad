/**
 * Observing a client's events (command monitoring via `monitorCommands: true`, and CMAP) and
 * checking a test's `expectEvents` against them.
 */
import type { MongoClient } from "mongodb";
import type { ExpectedEventsForClient } from "./loader";
import { match, type Doc, type MatchContext } from "./matcher";

/** The unified format's event names and the driver's event names. */
const COMMAND_EVENTS: Record<string, string> = {
  commandStartedEvent: "commandStarted",
  commandSucceededEvent: "commandSucceeded",
  commandFailedEvent: "commandFailed",
};

const CMAP_EVENTS: Record<string, string> = {
  poolCreatedEvent: "connectionPoolCreated",
  poolReadyEvent: "connectionPoolReady",
  poolClearedEvent: "connectionPoolCleared",
  poolClosedEvent: "connectionPoolClosed",
  connectionCreatedEvent: "connectionCreated",
  connectionReadyEvent: "connectionReady",
  connectionClosedEvent: "connectionClosed",
  connectionCheckOutStartedEvent: "connectionCheckOutStarted",
  connectionCheckOutFailedEvent: "connectionCheckOutFailed",
  connectionCheckedOutEvent: "connectionCheckedOut",
  connectionCheckedInEvent: "connectionCheckedIn",
};

/** storeEventsAsEntities names (PoolCreatedEvent, CommandStartedEvent...) → unified names. */
function storedName(name: string): string {
  return name.charAt(0).toLowerCase() + name.slice(1);
}

/** Commands whose events carry sensitive data (Command Logging and Monitoring spec, "Security"). */
const SENSITIVE = new Set([
  "authenticate",
  "saslstart",
  "saslcontinue",
  "getnonce",
  "createuser",
  "updateuser",
  "copydbgetnonce",
  "copydbsaslstart",
  "copydb",
]);

/** Handshake / monitoring commands a runner never asserts on. */
const HANDSHAKE = new Set(["hello", "ismaster"]);

export interface ObservedEvent {
  /** Unified format name, e.g. "commandStartedEvent", "connectionCheckedOutEvent". */
  type: string;
  commandName?: string;
  databaseName?: string;
  command?: Doc;
  reply?: Doc;
  failure?: unknown;
  requestId?: number;
  serviceId?: unknown;
  serverConnectionId?: unknown;
  reason?: string;
  interruptInUseConnections?: boolean;
}

interface RecorderOptions {
  observe: string[];
  ignoreCommands: string[];
  observeSensitiveCommands: boolean;
  storeEventsAsEntities: { id: string; events: string[] }[];
}

export class EventRecorder {
  /** Events observed while recording, in order (only the types listed in observeEvents). */
  readonly observed: ObservedEvent[] = [];
  /** Number of connections checked out right now (CMAP counter). */
  checkedOut = 0;
  private recording = false;
  private readonly ignore: Set<string>;
  private readonly stored = new Map<string, { names: Set<string>; list: Doc[] }>();
  private readonly listeners: [string, (e: unknown) => void][] = [];

  constructor(
    private readonly client: MongoClient,
    private readonly opts: RecorderOptions,
  ) {
    this.ignore = new Set(["configurefailpoint", ...opts.ignoreCommands.map((c) => c.toLowerCase())]);
    for (const s of opts.storeEventsAsEntities) {
      this.stored.set(s.id, { names: new Set(s.events.map(storedName)), list: [] });
    }
    const wanted = new Set<string>([...opts.observe]);
    for (const s of this.stored.values()) for (const n of s.names) wanted.add(n);
    // Always count check-outs (assertNumberConnectionsCheckedOut).
    wanted.add("connectionCheckedOutEvent");
    wanted.add("connectionCheckedInEvent");
    for (const name of wanted) {
      const driverName = COMMAND_EVENTS[name] ?? CMAP_EVENTS[name];
      if (!driverName) continue;
      const listener = (e: unknown) => this.onEvent(name, e as Doc);
      client.on(driverName as "commandStarted", listener as never);
      this.listeners.push([driverName, listener]);
    }
  }

  storedEntityIds(): string[] {
    return [...this.stored.keys()];
  }

  storedList(id: string): Doc[] {
    return this.stored.get(id)!.list;
  }

  start(): void {
    this.recording = true;
  }

  stop(): void {
    this.recording = false;
  }

  detach(): void {
    this.stop();
    for (const [name, l] of this.listeners) this.client.off(name as "commandStarted", l as never);
    this.listeners.length = 0;
  }

  private isIgnoredCommand(name: string, command: Doc | undefined): boolean {
    const lower = name.toLowerCase();
    if (this.ignore.has(lower)) return true;
    if (!this.opts.observeSensitiveCommands) {
      if (SENSITIVE.has(lower)) return true;
      // hello / legacy hello are sensitive when they carry speculativeAuthenticate (redacted: {}).
      if (HANDSHAKE.has(lower) && (!command || Object.keys(command).length === 0 || command.speculativeAuthenticate))
        return true;
    }
    // Handshake and heartbeats are never part of a test's expectations.
    if (HANDSHAKE.has(lower)) return true;
    return false;
  }

  private onEvent(type: string, e: Doc): void {
    if (type === "connectionCheckedOutEvent") this.checkedOut++;
    if (type === "connectionCheckedInEvent") this.checkedOut = Math.max(0, this.checkedOut - 1);

    const isCommand = type in COMMAND_EVENTS;
    const commandName = isCommand ? String(e.commandName) : undefined;
    if (isCommand && this.isIgnoredCommand(commandName!, e.command as Doc | undefined)) return;

    const ev: ObservedEvent = {
      type,
      commandName,
      databaseName: e.databaseName as string | undefined,
      command: e.command as Doc | undefined,
      reply: e.reply as Doc | undefined,
      failure: e.failure,
      requestId: e.requestId as number | undefined,
      serviceId: e.serviceId,
      serverConnectionId: e.serverConnectionId,
      reason: e.reason as string | undefined,
      interruptInUseConnections: e.interruptInUseConnections as boolean | undefined,
    };

    for (const s of this.stored.values()) {
      if (s.names.has(type)) {
        s.list.push({
          name: type.charAt(0).toUpperCase() + type.slice(1),
          observedAt: Date.now() / 1000,
          ...(commandName ? { commandName, databaseName: ev.databaseName } : {}),
          ...(ev.reason ? { reason: ev.reason } : {}),
          ...(ev.failure !== undefined ? { failure: String((ev.failure as Error)?.message ?? ev.failure) } : {}),
        });
      }
    }

    if (!this.recording) return;
    if (!this.opts.observe.includes(type)) return;
    this.observed.push(ev);
  }

  /** Observed events of one category (command / cmap). */
  ofCategory(category: "command" | "cmap" | "sdam"): ObservedEvent[] {
    return this.observed.filter((e) => categoryOf(e.type) === category);
  }
}

function categoryOf(type: string): "command" | "cmap" | "sdam" {
  if (type in COMMAND_EVENTS) return "command";
  if (type in CMAP_EVENTS) return "cmap";
  return "sdam";
}

/** Whether an observed event matches one expectedEvent object; returns a mismatch text or null. */
export function eventMismatch(expected: Doc, actual: ObservedEvent, ctx: MatchContext): string | null {
  const keys = Object.keys(expected);
  if (keys.length !== 1) return `an expected event must have exactly one key, got ${keys.join(",")}`;
  const type = keys[0];
  const body = (expected[type] ?? {}) as Doc;
  if (actual.type !== type) return `expected ${describeExpected(type, body)}, got ${describeActual(actual)}`;

  if (body.commandName !== undefined && body.commandName !== actual.commandName)
    return `expected commandName ${String(body.commandName)}, got ${String(actual.commandName)}`;
  if (body.databaseName !== undefined && body.databaseName !== actual.databaseName)
    return `${actual.commandName}: expected databaseName ${String(body.databaseName)}, got ${String(actual.databaseName)}`;
  if (body.command !== undefined) {
    const m = match(body.command, actual.command, { root: true, ctx, path: "command" });
    if (m) return `${actual.commandName}: ${m.path}: ${m.message}`;
  }
  if (body.reply !== undefined) {
    const m = match(body.reply, actual.reply, { root: true, ctx, path: "reply" });
    if (m) return `${actual.commandName} reply: ${m.path}: ${m.message}`;
  }
  if (body.hasServiceId !== undefined) {
    const has = actual.serviceId != null;
    if (has !== body.hasServiceId) return `expected hasServiceId ${String(body.hasServiceId)}`;
  }
  if (body.hasServerConnectionId !== undefined) {
    const has = actual.serverConnectionId != null;
    if (has !== body.hasServerConnectionId)
      return `expected hasServerConnectionId ${String(body.hasServerConnectionId)}`;
  }
  if (body.reason !== undefined && body.reason !== actual.reason)
    return `${type}: expected reason ${String(body.reason)}, got ${String(actual.reason)}`;
  if (
    body.interruptInUseConnections !== undefined &&
    body.interruptInUseConnections !== actual.interruptInUseConnections
  )
    return `${type}: expected interruptInUseConnections ${String(body.interruptInUseConnections)}`;
  return null;
}

function describeExpected(type: string, body: Doc): string {
  const name = body.commandName ?? (body.command ? Object.keys(body.command as Doc)[0] : undefined);
  return name ? `${type} ${String(name)}` : type;
}

function describeActual(e: ObservedEvent): string {
  return e.commandName ? `${e.type} ${e.commandName}` : e.type;
}

/** Checks one expectedEventsForClient object; returns a failure text or null. */
export function checkExpectedEvents(
  expected: ExpectedEventsForClient,
  recorder: EventRecorder,
  ctx: MatchContext,
): string | null {
  const category = expected.eventType ?? "command";
  const actual = recorder.ofCategory(category);
  const exp = expected.events;
  const names = (list: ObservedEvent[]) => list.map(describeActual).join(", ") || "none";
  if (expected.ignoreExtraEvents ? actual.length < exp.length : actual.length !== exp.length) {
    const expNames = exp.map((e) => describeExpected(Object.keys(e)[0], (Object.values(e)[0] ?? {}) as Doc));
    return `${expected.client}: expected ${exp.length} ${category} event(s) [${expNames.join(", ") || "none"}], observed ${actual.length} [${names(actual)}]`;
  }
  for (let i = 0; i < exp.length; i++) {
    const m = eventMismatch(exp[i], actual[i], ctx);
    if (m) return `${expected.client} event ${i}: ${m}`;
  }
  return null;
}
