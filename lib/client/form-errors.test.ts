import { SurveyCode } from "@/lib/resources/surveys/contract";
import { CreateUserBody } from "@/lib/resources/users/contract";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { ApiError } from "./api";
import { fieldOf, plainDetail, plainIssue, serverFieldErrors, zodFieldErrors } from "./form-errors";

const FIELDS = ["email", "name.names", "name.lastName", "accessRoles"];
const TEXTS = {
  email: { noun: "the e-mail address" },
  "name.lastName": { noun: "the last name" },
  accessRoles: { noun: "at least one access role" },
};

/** What a person must never read next to a field. */
const RAW = /`|expected (string|number|array)|Too (small|big)|>=|<=|Invalid input|request id/i;

describe("form errors", () => {
  it("finds the field of a path by whole segments", () => {
    expect(fieldOf("accessRoles.0", FIELDS)).toBe("accessRoles");
    expect(fieldOf("name.lastName", FIELDS)).toBe("name.lastName");
    expect(fieldOf("emailAddress", FIELDS)).toBeUndefined();
  });

  it("asks for an empty field by name, and keeps a schema's own plain message for a wrong one", () => {
    const input = {
      email: "nope",
      accessRoles: [],
      name: { displayName: "A", names: "A", lastName: "", secondLastName: "" },
    };
    const result = CreateUserBody.omit({ extensions: true }).safeParse(input);
    expect(result.success).toBe(false);
    const { fields } = zodFieldErrors(result.error!, FIELDS, TEXTS, input);
    expect(fields).toEqual({
      email: "Must be an e-mail address.",
      accessRoles: "Choose at least one access role.",
      "name.lastName": "Enter the last name.",
    });

    const empty = { ...input, email: "" };
    const again = CreateUserBody.omit({ extensions: true }).safeParse(empty);
    expect(zodFieldErrors(again.error!, FIELDS, TEXTS, empty).fields.email).toBe("Enter the e-mail address.");
  });

  it("turns zod's own wording into plain words, by issue code", () => {
    const issue = (schema: z.ZodType, value: unknown) => schema.safeParse(value).error!.issues[0]!;
    expect(plainIssue(issue(z.string().min(1), ""), { noun: "your e-mail" })).toBe("Enter your e-mail.");
    expect(plainIssue(issue(z.string().min(1), ""))).toBe("Fill in this field.");
    expect(plainIssue(issue(z.string().min(3), "ab"))).toBe("At least 3 characters.");
    expect(plainIssue(issue(z.string().max(60), "x".repeat(61)))).toBe("At most 60 characters.");
    expect(plainIssue(issue(z.email(), "nope"))).toBe("Enter an e-mail address such as name@example.com.");
    expect(plainIssue(issue(z.enum(["a", "b"]), "c"))).toBe("Choose one of: a, b.");
    expect(plainIssue(issue(z.string(), undefined), { noun: "a name" })).toBe("Enter a name.");
    expect(plainIssue(issue(z.number(), "x"))).toBe("Enter a number.");
  });

  it("says a field's whole rule instead of a single complaint when the form gives one", () => {
    const rule = "At most 60 characters: lowercase letters, digits and _.";
    expect(plainIssue(SurveyCode.safeParse("Bad Code").error!.issues[0]!, { rule })).toBe(rule);
    expect(plainIssue(SurveyCode.safeParse("x".repeat(61)).error!.issues[0]!, { rule })).toBe(rule);
  });

  it("reads the server's detail messages back into the same plain words", () => {
    expect(plainDetail("Too small: expected string to have >=1 characters", { noun: "your e-mail" })).toBe(
      "Enter your e-mail.",
    );
    expect(plainDetail("Too big: expected string to have <=254 characters")).toBe("At most 254 characters.");
    expect(plainDetail("Too small: expected array to have >=1 items", { noun: "at least one role" })).toBe(
      "Choose at least one role.",
    );
    expect(plainDetail("Invalid input: expected string, received undefined", { noun: "your password" })).toBe(
      "Enter your password.",
    );
    expect(plainDetail("is not a known field")).toBe("This field is not accepted here.");
    for (const message of [
      "Too small: expected string to have >=1 characters",
      "Invalid input: expected string, received number",
      "`email` is odd",
    ]) {
      expect(plainDetail(message)).not.toMatch(RAW);
    }
  });

  it("puts a server error's details on their fields and keeps the rest", () => {
    const error = new ApiError(409, "conflict", "A user with this e-mail already exists.", [
      { path: "email", message: "is already in use" },
      { path: "companies", message: "odd" },
    ]);
    expect(serverFieldErrors(error, FIELDS)).toEqual({ fields: { email: "Is already in use." }, rest: ["Odd."] });
  });
});
