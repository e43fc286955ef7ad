/**
 * The tasks that may run on a read worker (lib/kernel/db/workers.ts), by name: the reads, and the
 * writes whose commands all go to the database (docs/architecture.md#read-workers). Each takes
 * BSON-able arguments and answers plain records, so that it runs the same in the calling thread.
 */
import { readPopulatedSurvey, readSurveyRecords } from "@/lib/resources/surveys/repository";
import { writeSurveyPatch } from "@/lib/resources/surveys/writes";
import { readUserPage, readUserRecords } from "@/lib/resources/users/repository";
import { writeNewUser } from "@/lib/resources/users/writes";

export const readTasks = {
  userRecords: readUserRecords,
  userPage: readUserPage,
  surveyRecords: readSurveyRecords,
  populatedSurvey: readPopulatedSurvey,
  newUser: writeNewUser,
  surveyPatch: writeSurveyPatch,
};
