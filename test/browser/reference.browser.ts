// The reference page at /docs, in headless Chromium driven by playwright-core: it renders every
// operation of the document, makes no request outside this server, and logs no console error.
import { chromium, type Browser } from "playwright-core";
import { afterAll, beforeAll, expect, it } from "vitest";
import { documentedRoutes } from "../../server/openapi/document.ts";
import type { RunningServer } from "../../server/listen.ts";
import { createTestService, startTestServer, type TestService } from "../_support/server.ts";

const CHROMIUM = process.env.CHROMIUM_PATH ?? "/usr/bin/chromium";

let service: TestService;
let server: RunningServer;
let browser: Browser;
beforeAll(async () => {
  service = await createTestService();
  server = await startTestServer(service.app);
  browser = await chromium.launch({ executablePath: CHROMIUM, args: ["--no-sandbox", "--disable-gpu", "--disable-background-networking"] });
});
afterAll(async () => {
  await browser?.close();
  await server?.close();
  service?.close();
});

it("renders every operation, from this server only, without a console error", async () => {
  const page = await browser.newPage();
  const requests: string[] = [];
  const problems: string[] = [];
  page.on("request", (request) => requests.push(request.url()));
  page.on("console", (message) => {
    if (message.type() === "error" || message.type() === "warning") problems.push(`console.${message.type()}: ${message.text()}`);
  });
  page.on("pageerror", (error) => problems.push(`page error: ${error.message}`));
  page.on("requestfailed", (request) => problems.push(`request failed: ${request.url()}`));

  const response = await page.goto(`${server.url}/docs`, { waitUntil: "networkidle" });
  expect(response?.status()).toBe(200);
  const operations = documentedRoutes(false).map((route) => route.operation);
  await page.waitForSelector(`[data-section-id$="operation/${operations.at(-1)}"]`);
  for (const operation of operations) {
    await expect.poll(() => page.locator(`[data-section-id$="operation/${operation}"]`).count(), { message: operation }).toBeGreaterThan(0);
  }
  expect(await page.title()).toBe("Curated Entity Intelligence API reference");
  expect(await page.locator("text=Curated Entity Intelligence API").first().isVisible()).toBe(true);

  const outside = requests.filter((url) => !url.startsWith(`${server.url}/`) && !url.startsWith("data:") && !url.startsWith("blob:"));
  expect(outside).toEqual([]);
  expect(requests).toEqual(expect.arrayContaining([
    `${server.url}/docs`, `${server.url}/openapi.json`, expect.stringMatching(/\/docs\/redoc\.standalone\.[0-9a-f]{16}\.js$/),
  ]));
  expect(problems).toEqual([]);
  await page.close();
});
