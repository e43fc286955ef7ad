export { Meta } from "./meta";
