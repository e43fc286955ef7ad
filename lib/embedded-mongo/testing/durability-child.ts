/**
 * Child process of durability.test.ts: serves DIR, then writes through the driver without end,
 * printing each write only once the server acknowledged it:
 *   i <id>   a document inserted        d <id>   a document deleted
 *   c <n>    the counter document's `n` after an acknowledged $inc
 *   D <id>   a delete about to be sent (it may be applied without being acknowledged)
 * Usage: node --import tsx durability-child.ts DIR ROUND
 */
import { MongoClient } from "mongodb";
import { startEmbeddedMongo } from "../index";

async function main(): Promise<void> {
  const [dir, round] = process.argv.slice(2);
  if (!dir || !round) throw new Error("usage: durability-child.ts DIR ROUND");
  const server = await startEmbeddedMongo({ dir });
  const client = await MongoClient.connect(server.uri);
  const docs = client
    .db("durability")
    .collection<{ _id: string; tag: string; round: number; seq: number; payload: string }>("docs");
  const counter = client.db("durability").collection<{ _id: string; n: number }>("counter");
  await docs.createIndex({ tag: 1 }, { unique: true });
  const print = (line: string) => process.stdout.write(`${line}\n`);

  for (let seq = 0; ; seq++) {
    const id = `r${round}-${seq}`;
    const payload = "x".repeat((seq * 131) % 2000);
    if (seq % 7 === 6) {
      const batch = [0, 1, 2].map((k) => ({
        _id: `${id}-${k}`,
        tag: `t-${id}-${k}`,
        round: Number(round),
        seq,
        payload,
      }));
      await docs.insertMany(batch);
      for (const doc of batch) print(`i ${doc._id}`);
    } else {
      await docs.insertOne({ _id: id, tag: `t-${id}`, round: Number(round), seq, payload });
      print(`i ${id}`);
    }
    if (seq % 5 === 4) {
      const after = await counter.findOneAndUpdate(
        { _id: "counter" },
        { $inc: { n: 1 } },
        { upsert: true, returnDocument: "after" },
      );
      print(`c ${after!.n}`);
    }
    if (seq % 10 === 9) {
      const victimSeq = seq - 2;
      const victim = victimSeq % 7 === 6 ? `r${round}-${victimSeq}-0` : `r${round}-${victimSeq}`;
      print(`D ${victim}`);
      const { deletedCount } = await docs.deleteOne({ _id: victim });
      if (deletedCount === 1) print(`d ${victim}`);
    }
  }
}

main().catch((err: unknown) => {
  process.stderr.write(`${err instanceof Error ? err.stack : String(err)}\n`);
  process.exit(1);
});
