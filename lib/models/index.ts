export { Company } from "./company";
export { AccessRole, Bot, JobTitle, Property } from "./reference";
export { Credential, Invitation, Session } from "./secrets";
export { OutboxMail } from "./outbox";
export { Meta } from "./meta";
export { SurveyChat } from "./survey-chat";
export { Question } from "./question";
export { Answer } from "./answer";
export { SurveyRevision } from "./survey-revision";
