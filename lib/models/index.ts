export { Company } from "./company";
export { AccessRole, Bot, JobTitle, Property } from "./reference";
export { User } from "./user";
export { Credential, Invitation, Session } from "./secrets";
export { OutboxMail } from "./outbox";
export { Meta } from "./meta";
