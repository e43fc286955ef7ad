/**
 * MongoDB's checks of an aggregation pipeline's shape, made before any document is read, so a
 * malformed or unknown stage is refused with MongoDB's code even on an empty or missing
 * collection (mingo would only notice it while running, in its own words).
 */
import * as mingoStages from "mingo/operators/pipeline";
import { MongoCommandError } from "./errors";
import { isPlainObject } from "./keys";

/**
 * MongoDB's other stage names: they are not "unrecognized"; whatever the server does not offer
 * of them is refused where it is handled, with its own message.
 */
const MONGODB_STAGES = new Set([
  "$changeStream", "$changeStreamSplitLargeEvent", "$collStats", "$currentOp", "$geoNear", "$indexStats", "$listLocalSessions",
  "$listSampledQueries", "$listSearchIndexes", "$listSessions", "$planCacheStats", "$querySettings", "$queryStats", "$search",
  "$searchMeta", "$shardedDataDistribution", "$vectorSearch", "$listClusterCatalog", "$rankFusion", "$scoreFusion",
]);

export function checkPipeline(pipeline: unknown[]): void {
  for (const stage of pipeline) {
    if (!isPlainObject(stage) || Object.keys(stage).length !== 1) {
      throw new MongoCommandError("Location40323", "A pipeline stage specification object must contain exactly one field.");
    }
    const name = Object.keys(stage)[0];
    if (!Object.hasOwn(mingoStages, name) && !MONGODB_STAGES.has(name)) {
      throw new MongoCommandError("Location40324", `Unrecognized pipeline stage name: '${name}'`);
    }
  }
}
