/**
 * The filter of the surveys lists and exports, built for the repository's reads
 * (./repository.ts): the service says which surveys it wants, this says it in MongoDB's terms.
 */
import { oid, type ObjectId } from "@/lib/kernel/ids";
import type { Notes } from "@/lib/kernel/notes";
import type { Document, Filter } from "mongodb";
import type { ListSurveysQuery } from "./contract";
import { answersOf } from "./repository";
import { searchFilter } from "./search";

/** The filters of a surveys list query: everything but its paging, order and `select`. */
type SurveyFilters = Pick<ListSurveysQuery, "answer" | "id" | "isActive" | "search">;

/** The surveys of the company a list query's filters match. */
export async function surveyListFilter(
  companyId: ObjectId,
  query: SurveyFilters,
  notes: Notes,
): Promise<Filter<Document>> {
  const filter: Filter<Document> = { company: companyId };
  if (query.isActive !== "all") filter.isActive = query.isActive === "true";
  const ids = query.id?.map(oid);
  if (query.answer) {
    const ofAnswers = await surveysOfAnswers(companyId, query.answer, notes);
    filter._id = { $in: ids ? ofAnswers.filter((id) => ids.some((wanted) => wanted.equals(id))) : ofAnswers };
  } else if (ids) filter._id = { $in: ids };

  if (query.search === "") notes.warning("empty_search", "The search is empty and was ignored.", "search");
  else if (query.search !== undefined) Object.assign(filter, searchFilter(query.search));
  return filter;
}

/** The ids of the surveys the answers of these uuids belong to, within the company. */
async function surveysOfAnswers(companyId: ObjectId, uuids: string[], notes: Notes): Promise<ObjectId[]> {
  const wanted = [...new Set(uuids)];
  const answers = await answersOf(companyId, wanted.map(oid));
  const found = new Set(answers.map((answer) => answer.uuid.toHexString()));
  for (const uuid of wanted) {
    if (!found.has(uuid)) notes.warning("unknown_answer", `No answer of the company has the uuid ${uuid}.`, "answer");
  }
  const surveys = new Map(answers.map((answer) => [answer.survey.toHexString(), answer.survey]));
  return [...surveys.values()];
}
