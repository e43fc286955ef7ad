import { describe, expect, it } from "vitest";
import { safeReturnPath } from "./session";

/** What a browser does with the answer: navigate relative to the page it is on. */
const landsOn = (path: string) => new URL(path, "https://admin.example/sign-in").origin;

describe("safeReturnPath", () => {
  it.each([
    "//evil.example",
    "///evil.example",
    "/\\evil.example",
    "/\\/evil.example",
    "\\\\evil.example",
    "/\t/evil.example",
    "/\n/evil.example",
    "/\r/evil.example",
    "\t//evil.example",
    " //evil.example",
    "/\u0000/evil.example",
    "/\u007f/evil.example",
    "https://evil.example",
    "https:evil.example",
    "http:/evil.example",
    "javascript:alert(1)",
    "JaVaScRiPt:alert(1)",
    "data:text/html,<script>alert(1)</script>",
    "evil.example",
    "/a/../..//evil.example",
    "/./..//evil.example",
    "/sign-in?next=/users",
    "",
    null,
    undefined,
  ])("sends %j to the fallback", (value) => {
    expect(safeReturnPath(value)).toBe("/users");
  });

  it("reads the query as the sign-in page does: %09 and %2F arrive decoded", () => {
    const next = new URLSearchParams("next=%2F%09%2Fevil.example").get("next");
    expect(next).toBe("/\t/evil.example");
    expect(safeReturnPath(next)).toBe("/users");
    expect(safeReturnPath(new URLSearchParams("next=%2F%2Fevil.example").get("next"))).toBe("/users");
  });

  it("keeps a still-encoded slash on this site", () => {
    const path = safeReturnPath("/%2F%2Fevil.example");
    expect(landsOn(path)).toBe("https://admin.example");
    expect(path).toBe("/%2F%2Fevil.example");
  });

  it.each([
    ["/users", "/users"],
    ["/users?isActive=false&page=2", "/users?isActive=false&page=2"],
    ["/surveys/0123456789abcdef01234567#chat", "/surveys/0123456789abcdef01234567#chat"],
    ["/users/../surveys", "/surveys"],
    ["/users?next=//evil.example", "/users?next=//evil.example"],
  ])("keeps the path %j of this site", (value, expected) => {
    expect(safeReturnPath(value)).toBe(expected);
    expect(landsOn(expected)).toBe("https://admin.example");
  });
});
