/**
 * The tasks that may run on a read worker (lib/kernel/db/workers.ts), by name: the reads, and the
 * writes whose commands all go to the database (docs/architecture.md#read-workers). Each takes
 * BSON-able arguments and answers plain data (records, or a page's records written as JSON for its
 * answer: lib/kernel/json-text.ts), so that it runs the same in the calling thread.
 */
import { readWrittenPopulatedSurvey, readWrittenSurveys } from "@/lib/resources/surveys/repository";
import { writeSurveyPatch } from "@/lib/resources/surveys/writes";
import { readWrittenUser, readWrittenUserPage } from "@/lib/resources/users/repository";
import { writeNewUser } from "@/lib/resources/users/writes";

export const readTasks = {
  writtenUser: readWrittenUser,
  userPage: readWrittenUserPage,
  surveyPage: readWrittenSurveys,
  populatedSurvey: readWrittenPopulatedSurvey,
  newUser: writeNewUser,
  surveyPatch: writeSurveyPatch,
};
