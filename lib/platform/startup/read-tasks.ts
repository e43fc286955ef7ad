/**
 * The reads that may run on a read worker (lib/kernel/db/workers.ts), by name. Each takes BSON-able
 * arguments and answers plain records, so that it runs the same in the calling thread.
 */
import { readPopulatedSurvey, readSurveyRecords } from "@/lib/resources/surveys/repository";
import { readUserPage, readUserRecords } from "@/lib/resources/users/repository";

export const readTasks = {
  userRecords: readUserRecords,
  userPage: readUserPage,
  surveyRecords: readSurveyRecords,
  populatedSurvey: readPopulatedSurvey,
};
