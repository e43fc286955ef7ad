import { describe, expect, it } from "vitest";
import { CreateUserBody } from "@/lib/users/contract";
import { ApiError } from "./api";
import { fieldOf, serverFieldErrors, zodFieldErrors } from "./form-errors";

const FIELDS = ["email", "name.names", "name.lastName", "accessRoles"];

describe("form errors", () => {
  it("finds the field of a path by whole segments", () => {
    expect(fieldOf("accessRoles.0", FIELDS)).toBe("accessRoles");
    expect(fieldOf("name.lastName", FIELDS)).toBe("name.lastName");
    expect(fieldOf("emailAddress", FIELDS)).toBeUndefined();
  });

  it("puts the zod schema's messages on their fields", () => {
    const result = CreateUserBody.omit({ extensions: true }).safeParse({ email: "nope", accessRoles: [], name: { displayName: "A", names: "A", lastName: "", secondLastName: "" } });
    expect(result.success).toBe(false);
    const { fields } = zodFieldErrors(result.error!, FIELDS);
    expect(fields).toEqual({ email: "Must be an e-mail address.", accessRoles: "Must name at least one access role.", "name.lastName": "Must not be empty." });
  });

  it("puts a server error's details on their fields and keeps the rest", () => {
    const error = new ApiError(409, "conflict", "A user with this e-mail already exists.", [
      { path: "email", message: "is already in use" },
      { path: "companies", message: "odd" },
    ]);
    expect(serverFieldErrors(error, FIELDS)).toEqual({ fields: { email: "Is already in use." }, rest: ["companies: odd"] });
  });
});
