import { describe, expect, it } from "vitest";
import { savedQuery, viewHref } from "./views";

describe("saved view links", () => {
  it("keeps a page's filters without its paging or the view's own marker", () => {
    expect(
      savedQuery(
        new URLSearchParams("search=ana&page=3&view=0123456789abcdef01234567&isActive=all&email=a@x.io&email=b@x.io"),
      ),
    ).toBe("search=ana&isActive=all&email=a%40x.io&email=b%40x.io");
    expect(savedQuery(new URLSearchParams("page=2"))).toBe("");
  });

  it("links to the list with the view's query and its id", () => {
    expect(viewHref("/users", { _id: "0123456789abcdef01234567", query: "isActive=false&search=j%C3%B3se" })).toBe(
      "/users?isActive=false&search=j%C3%B3se&view=0123456789abcdef01234567",
    );
    expect(viewHref("/surveys", { _id: "0123456789abcdef01234567", query: "" })).toBe(
      "/surveys?view=0123456789abcdef01234567",
    );
  });
});
