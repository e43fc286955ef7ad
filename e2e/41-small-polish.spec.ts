/**
 * Small things a person meets: an unknown record is a calm not-found; a record opened from its
 * list has the focus on its heading; `/` puts the focus in a list's Search; a chart's bars carry
 * their counts; a view that cannot be saved says the API's reason and the request id; Activity names a
 * survey by its name and opens an entry in place, under its row. At 1440 px in light and 390 px in dark.
 */
import { expect, openSignedIn, screenshot, STATE_MODES, test, unique } from "./fixtures";

for (const mode of STATE_MODES) {
  test.describe(`${mode.width} px, ${mode.theme}`, () => {
    // The unknown survey's 404, and the 404 of a view deleted while its dialog was open: both are the point.
    // (One pattern: Playwright reads a fixture's array of two as a value and its options.)
    test.use({ expectedConsoleErrors: [/status of 404 \(Not Found\).*\/v2\/(surveys\/f{24}|views\/[0-9a-f]{24})/] });
    test.beforeEach(async ({ page }) => {
      await page.setViewportSize({ width: mode.width, height: mode.height });
      await page.emulateMedia({ colorScheme: mode.theme });
    });

    test(`41. an unknown survey is a calm not-found (${mode.width} px)`, async ({ page }) => {
      await openSignedIn(page, "/surveys/ffffffffffffffffffffffff");
      await expect(page.getByText("This survey does not exist")).toBeVisible();
      await expect(page.getByRole("alert").filter({ hasText: "could not be loaded" })).toHaveCount(0);
      await screenshot(page, `41-not-found-${mode.width}-${mode.theme}`);
    });

    test(`41. Activity names a survey by its name and opens an entry right under its row (${mode.width} px)`, async ({
      page,
    }) => {
      await openSignedIn(page, "/activity");
      const token = (await (await page.request.post("/api/auth/token")).json()).accessToken as string;
      const name = `Pulse ${unique()}`;
      const created = await page.request.post("/v2/surveys", {
        headers: { Authorization: `Bearer ${token}`, Admin: "true" },
        data: { version: 1, code: `pulse_${unique()}`, name },
      });
      expect(created.status()).toBe(201);
      await page.goto("/activity?resourceType=survey&action=survey.created");
      const row = (mode.width < 640 ? page.getByTestId("data-card") : page.getByRole("row"))
        .filter({ hasText: name })
        .first();
      await expect(row.getByRole("link", { name })).toBeVisible();
      await row.getByRole("link").first().click();
      await expect(page).toHaveURL(/entry=[0-9a-f]{24}/);
      const detail = page.getByTestId("row-detail");
      await expect(detail).toHaveCount(1);
      await expect(detail.getByRole("heading", { name: /Created survey/ })).toBeVisible();
      // In place: the details start where the opened row ends, not below the whole list.
      const rowBox = (await row.boundingBox())!;
      const detailBox = (await detail.boundingBox())!;
      expect(Math.abs(detailBox.y - (rowBox.y + rowBox.height))).toBeLessThanOrEqual(2);
      await screenshot(page, `41-activity-entry-${mode.width}-${mode.theme}`);
      await detail.getByRole("link", { name: "Close" }).click();
      await expect(page.getByTestId("row-detail")).toHaveCount(0);
    });

    test(`41. a view that cannot be saved shows the API's reason and the request id (${mode.width} px)`, async ({
      page,
    }) => {
      await openSignedIn(page, "/users");
      const token = (await (await page.request.post("/api/auth/token")).json()).accessToken as string;
      const headers = { Authorization: `Bearer ${token}` };
      const name = `Gone ${unique()}`;
      const created = await page.request.post("/v2/views", {
        headers,
        data: { resource: "users", name, query: "isActive=false" },
      });
      expect(created.status()).toBe(201);
      const view = (await created.json()) as { _id: string };
      await page.reload();
      await page.getByRole("button", { name: /^Views/ }).click();
      await page.getByRole("button", { name: `Edit ${name}` }).click();
      const dialog = page.getByRole("dialog", { name: "Edit view" });
      await expect(dialog).toBeVisible();
      // Someone deletes it meanwhile: the save is refused, and the dialog says why, in the API's words.
      expect((await page.request.delete(`/v2/views/${view._id}`, { headers })).status()).toBe(204);
      await dialog.getByLabel("Name").fill(`${name} renamed`);
      await dialog.getByRole("button", { name: "Save changes" }).click();
      const alert = dialog.getByRole("alert");
      await expect(alert).toContainText("The view could not be saved");
      await expect(alert).toContainText("No such view.");
      await expect(alert).toContainText(/Request id: \S+/);
      await screenshot(page, `41-view-not-saved-${mode.width}-${mode.theme}`);
    });

    test(`41. a record opened from its list has the focus on its heading; "/" focuses Search (${mode.width} px)`, async ({
      page,
    }) => {
      await openSignedIn(page, "/users");
      await expect(page.getByTestId("users-total")).toBeVisible();
      const search = page.getByRole("searchbox", { name: "Search" });
      if (mode.width < 640) await page.getByRole("button", { name: /^Filters/ }).click();
      else await page.getByRole("heading", { level: 1 }).click();
      await page.keyboard.press("/");
      await expect(search).toBeFocused();
      await page.keyboard.type("a");
      await expect(search).toHaveValue("a");
      await search.fill("");

      const first =
        mode.width < 640
          ? page.getByTestId("data-card").first().getByRole("link")
          : page.getByRole("table").getByRole("link").first();
      const name = (await first.innerText()).trim();
      await first.click();
      await expect(page.getByRole("heading", { level: 1, name })).toBeFocused();
    });

    test(`41. a chart's bars carry their counts (${mode.width} px)`, async ({ page }) => {
      await openSignedIn(page, "/surveys");
      const token = (await (await page.request.post("/api/auth/token")).json()).accessToken as string;
      const headers = { Authorization: `Bearer ${token}`, Admin: "true" };
      const roles = (await (await page.request.get("/v2/access-roles", { headers })).json()).data.accessRoles as {
        _id: string;
        isAdmin: boolean;
      }[];
      const created = await page.request.post("/v2/surveys", {
        headers,
        data: {
          code: `chart_${unique()}`,
          name: "Chart counts",
          version: 2,
          permissionsV2: [
            { accessRole: roles.find((role) => role.isAdmin)!._id, canAnswer: true, canViewAnswers: true },
          ],
        },
      });
      const id = (await created.json())._id as string;
      const content = await page.request.put(`/v2/surveys/${id}/content`, {
        headers,
        data: {
          chat: [
            { name: "Team", questions: [{ text: "Which team?", type: "single_choice", options: ["Red", "Blue"] }] },
          ],
        },
      });
      const question = (await content.json()).chat[0].questions[0]._id as string;
      for (const value of ["Red", "Red", "Blue"])
        expect(
          (
            await page.request.post(`/v2/surveys/${id}/answers`, { headers, data: { answers: [{ question, value }] } })
          ).status(),
        ).toBe(201);

      await page.goto(`/surveys/${id}/results`);
      const chart = page.getByRole("img", { name: /Which team\?: Red 2, Blue 1/ });
      await expect(chart).toBeVisible();
      await expect(chart.locator(".recharts-label-list text")).toHaveText(["2", "1"]);
      await screenshot(page, `41-chart-counts-${mode.width}-${mode.theme}`);
    });
  });
}
