export { Credential, Invitation, Session } from "./secrets";
export { Meta } from "./meta";
