import { describe, expect, it } from "vitest";
import { holdsMask, maskUrl } from "./masked-url";

describe("a URL as shown", () => {
  it("masks userinfo, every query value and the fragment, keeping scheme, host, port, path and keys", () => {
    expect(maskUrl("https://user:pass@hooks.example.com/x?token=abc&a=1")).toBe(
      "https://•••@hooks.example.com/x?token=•••&a=•••",
    );
    expect(maskUrl("https://user@hooks.example.com:8443/x")).toBe("https://•••@hooks.example.com:8443/x");
    expect(maskUrl("https://:pass@hooks.example.com/")).toBe("https://•••@hooks.example.com/");
    expect(maskUrl("http://[2606:4700::1]/x?s3cret&k=&=v#frag")).toBe("http://[2606:4700::1]/x?•••&k=•••&=•••#•••");
    expect(maskUrl("https://h.example.com/x?a=1&&b=2")).toBe("https://h.example.com/x?a=•••&&b=•••");
  });

  it("shows a URL with nothing to hide as written, and hides text that is not a URL whole", () => {
    expect(maskUrl("https://hooks.example.com/x/y")).toBe("https://hooks.example.com/x/y");
    expect(maskUrl("not a url ?token=abc")).toBe("•••");
  });

  it("is idempotent, and what it shows is recognised as shown, percent-encoded too", () => {
    const shown = maskUrl("https://u:p@h.example.com/x?t=1");
    expect(maskUrl(shown)).toBe(shown);
    expect(holdsMask(shown)).toBe(true);
    expect(holdsMask(new URL(shown).href)).toBe(true);
    expect(holdsMask("https://h.example.com/x?t=1")).toBe(false);
  });
});
