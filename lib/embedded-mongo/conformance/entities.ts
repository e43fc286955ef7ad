/** The per-test entity map: clients (with event observation), databases, collections, sessions... */
import {
  AbstractCursor,
  ChangeStream,
  ClientSession,
  Collection,
  Db,
  MongoClient,
  ReadConcern,
  ReadPreference,
  WriteConcern,
  type MongoClientOptions,
  type ReadPreferenceMode,
} from "mongodb";
import { EventRecorder } from "./events";
import type { Doc } from "./matcher";

export class UnsupportedError extends Error {}

export interface ClientEntity {
  kind: "client";
  id: string;
  client: MongoClient;
  events: EventRecorder;
}

export type Entity =
  | ClientEntity
  | { kind: "database"; id: string; db: Db; clientId: string }
  | { kind: "collection"; id: string; collection: Collection<Doc>; clientId: string }
  | { kind: "session"; id: string; session: ClientSession; clientId: string }
  | { kind: "cursor"; id: string; cursor: AbstractCursor<Doc> }
  | { kind: "changeStream"; id: string; stream: ChangeStream }
  | { kind: "value"; id: string; value: unknown };

export class EntityMap {
  private readonly map = new Map<string, Entity>();

  constructor(private readonly uri: string) {}

  has(id: string): boolean {
    return this.map.has(id);
  }

  add(entity: Entity): void {
    if (this.map.has(entity.id)) throw new Error(`entity "${entity.id}" already exists`);
    this.map.set(entity.id, entity);
  }

  get(id: string): Entity {
    const e = this.map.get(id);
    if (!e) throw new Error(`no entity named "${id}"`);
    return e;
  }

  getKind<K extends Entity["kind"]>(id: string, kind: K): Extract<Entity, { kind: K }> {
    const e = this.get(id);
    if (e.kind !== kind) throw new Error(`entity "${id}" is a ${e.kind}, not a ${kind}`);
    return e as Extract<Entity, { kind: K }>;
  }

  client(id: string): ClientEntity {
    return this.getKind(id, "client");
  }

  /** The value used by `$$matchesEntity` (BSON values saved with saveResultAsEntity). */
  bsonValue(id: string): unknown {
    const e = this.get(id);
    if (e.kind !== "value") throw new Error(`entity "${id}" is a ${e.kind}, not a BSON value`);
    return e.value;
  }

  /** The lsid document of a session entity, for `$$sessionLsid`. */
  sessionLsid(id: string): unknown {
    const s = this.getKind(id, "session").session;
    return s.id;
  }

  clients(): ClientEntity[] {
    return [...this.map.values()].filter((e): e is ClientEntity => e.kind === "client");
  }

  /** The client a database/collection/session entity was made from. */
  clientOf(id: string): ClientEntity {
    const e = this.get(id);
    if (e.kind === "client") return e;
    if ("clientId" in e) return this.client(e.clientId);
    throw new Error(`entity "${id}" has no client`);
  }

  async createAll(entities: Doc[]): Promise<void> {
    for (const spec of entities) await this.create(spec);
  }

  async create(spec: Doc): Promise<void> {
    const keys = Object.keys(spec);
    if (keys.length !== 1) throw new Error(`an entity must have exactly one key, got ${keys.join(",")}`);
    const kind = keys[0];
    const o = spec[kind] as Doc;
    const id = String(o.id);
    switch (kind) {
      case "client":
        return this.createClient(id, o);
      case "database": {
        const c = this.client(String(o.client));
        const db = c.client.db(String(o.databaseName), collectionOrDatabaseOptions(o.databaseOptions as Doc));
        this.add({ kind: "database", id, db, clientId: c.id });
        return;
      }
      case "collection": {
        const d = this.getKind(String(o.database), "database");
        const collection = d.db.collection<Doc>(
          String(o.collectionName),
          collectionOrDatabaseOptions(o.collectionOptions as Doc),
        );
        this.add({ kind: "collection", id, collection, clientId: d.clientId });
        return;
      }
      case "session": {
        const c = this.client(String(o.client));
        const session = c.client.startSession(sessionOptions(o.sessionOptions as Doc));
        // Try first: a ping in the session fails when the server does not support sessions.
        try {
          await c.client.db("admin").command({ ping: 1 }, { session });
        } catch (e) {
          await session.endSession().catch(() => undefined);
          throw new UnsupportedError(`sessions are not supported by the server: ${(e as Error).message}`);
        }
        this.add({ kind: "session", id, session, clientId: c.id });
        return;
      }
      case "bucket":
        throw new UnsupportedError("GridFS bucket entities are not implemented by this runner");
      case "clientEncryption":
        throw new UnsupportedError("client-side encryption (clientEncryption entity) is not available");
      case "thread":
        throw new UnsupportedError("thread entities are not implemented by this runner");
      default:
        throw new Error(`unknown entity type "${kind}"`);
    }
  }

  private async createClient(id: string, o: Doc): Promise<void> {
    if (o.autoEncryptOpts) throw new UnsupportedError("auto encryption needs libmongocrypt");
    if (o.serverApi) {
      // Passed through to the driver below.
    }
    const uri = withUriOptions(this.uri, (o.uriOptions as Doc) ?? {});
    const options: MongoClientOptions = { monitorCommands: true, serverSelectionTimeoutMS: 10_000 };
    if (o.serverApi) options.serverApi = o.serverApi as MongoClientOptions["serverApi"];
    const client = new MongoClient(uri, options);
    const events = new EventRecorder(client, {
      observe: (o.observeEvents as string[]) ?? [],
      ignoreCommands: (o.ignoreCommandMonitoringEvents as string[]) ?? [],
      observeSensitiveCommands: o.observeSensitiveCommands === true,
      storeEventsAsEntities: (o.storeEventsAsEntities as { id: string; events: string[] }[]) ?? [],
    });
    for (const store of events.storedEntityIds()) {
      this.add({ kind: "value", id: store, value: events.storedList(store) });
    }
    this.add({ kind: "client", id, client, events });
    await client.connect();
  }

  /** Ends sessions, closes cursors and clients; never throws. */
  async close(): Promise<void> {
    const all = [...this.map.values()];
    for (const e of all) {
      if (e.kind === "cursor") await e.cursor.close().catch(() => undefined);
      if (e.kind === "changeStream") await e.stream.close().catch(() => undefined);
    }
    for (const e of all) if (e.kind === "session") await e.session.endSession().catch(() => undefined);
    for (const e of all) {
      if (e.kind === "client") {
        e.events.detach();
        await e.client.close().catch(() => undefined);
      }
    }
    this.map.clear();
  }
}

/** Appends URI options to a connection string (overriding any with the same name). */
export function withUriOptions(uri: string, opts: Doc): string {
  const entries = Object.entries(opts);
  if (!entries.length) return uri;
  const q = uri.indexOf("?");
  let base = q === -1 ? uri : uri.slice(0, q);
  const existing =
    q === -1
      ? []
      : uri
          .slice(q + 1)
          .split("&")
          .filter(Boolean);
  const afterScheme = base.replace(/^mongodb(\+srv)?:\/\//, "");
  if (!afterScheme.includes("/")) base += "/";
  const names = new Set(entries.map(([k]) => k.toLowerCase()));
  const params = existing.filter((p) => !names.has(decodeURIComponent(p.split("=")[0]).toLowerCase()));
  for (const [k, v] of entries) {
    if (k === "readPreferenceTags" && Array.isArray(v)) {
      for (const tag of v) params.push(`${k}=${encodeURIComponent(String(tag))}`);
    } else if (k === "authMechanismProperties" && v && typeof v === "object") {
      const s = Object.entries(v as Doc)
        .map(([pk, pv]) => `${pk}:${String(pv)}`)
        .join(",");
      params.push(`${k}=${encodeURIComponent(s)}`);
    } else {
      params.push(`${k}=${encodeURIComponent(String(v))}`);
    }
  }
  return `${base}?${params.join("&")}`;
}

export function toReadPreference(rp: unknown): ReadPreference | undefined {
  if (!rp || typeof rp !== "object") return undefined;
  const r = rp as { mode: string; tagSets?: Doc[]; maxStalenessSeconds?: number; hedge?: Doc };
  const mode = (r.mode.charAt(0).toLowerCase() + r.mode.slice(1)) as ReadPreferenceMode;
  return new ReadPreference(mode, r.tagSets as never, {
    maxStalenessSeconds: r.maxStalenessSeconds,
    hedge: r.hedge,
  });
}

export function toReadConcern(rc: unknown): ReadConcern | undefined {
  if (!rc || typeof rc !== "object") return undefined;
  return new ReadConcern((rc as { level: string }).level as never);
}

export function toWriteConcern(wc: unknown): WriteConcern | undefined {
  if (!wc || typeof wc !== "object") return undefined;
  const w = wc as { w?: number | string; journal?: boolean; wtimeoutMS?: number };
  return new WriteConcern(w.w as never, w.wtimeoutMS, w.journal);
}

/** collectionOrDatabaseOptions: readConcern, readPreference, writeConcern (+ timeoutMS etc.). */
function collectionOrDatabaseOptions(o: Doc | undefined): Doc {
  if (!o) return {};
  const out: Doc = { ...o };
  if (o.readConcern) out.readConcern = toReadConcern(o.readConcern);
  if (o.readPreference) out.readPreference = toReadPreference(o.readPreference);
  if (o.writeConcern) out.writeConcern = toWriteConcern(o.writeConcern);
  return out;
}

function sessionOptions(o: Doc | undefined): Doc {
  if (!o) return {};
  const out: Doc = { ...o };
  if (o.defaultTransactionOptions)
    out.defaultTransactionOptions = collectionOrDatabaseOptions(o.defaultTransactionOptions as Doc);
  return out;
}
