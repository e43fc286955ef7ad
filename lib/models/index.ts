export { Credential, Invitation, Session } from "./secrets";
export { Meta } from "./meta";
export { SurveyChat } from "./survey-chat";
export { Question } from "./question";
export { Answer } from "./answer";
export { SurveyRevision } from "./survey-revision";
