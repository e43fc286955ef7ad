import { expect, openSignedIn, test } from "./fixtures";

test("first-load JavaScript of the users page stays under 250 kB", async ({ page }) => {
  await openSignedIn(page, "/surveys");
  // A fresh document load of /users with nothing cached, as on a first visit.
  const cdp = await page.context().newCDPSession(page);
  await cdp.send("Network.enable");
  await cdp.send("Network.setCacheDisabled", { cacheDisabled: true });
  await page.goto("/users");
  await expect(page.getByTestId("users-total")).toBeVisible();
  const sizes = await page.evaluate(() =>
    performance
      .getEntriesByType("resource")
      .map((entry) => entry as PerformanceResourceTiming)
      .filter((entry) => entry.initiatorType === "script" || entry.name.endsWith(".js"))
      .map((entry) => ({ url: entry.name, encoded: entry.encodedBodySize, decoded: entry.decodedBodySize })),
  );
  const encoded = sizes.reduce((sum, entry) => sum + entry.encoded, 0);
  const decoded = sizes.reduce((sum, entry) => sum + entry.decoded, 0);
  console.log(
    `users page first-load JS: ${(encoded / 1024).toFixed(1)} kB transferred (compressed), ${(decoded / 1024).toFixed(1)} kB uncompressed, ${sizes.length} files`,
  );
  test.info().annotations.push({
    type: "first-load-js",
    description: `${(encoded / 1024).toFixed(1)} kB compressed, ${(decoded / 1024).toFixed(1)} kB raw`,
  });
  expect(encoded).toBeGreaterThan(0);
  expect(encoded).toBeLessThan(250 * 1024);
});
