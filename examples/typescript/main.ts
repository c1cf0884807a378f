// Every operation once, against a running server: `CEI_KEY=<key> npx tsx examples/typescript/main.ts`
// (`npm start` prints a key and serves the bundled sample on http://127.0.0.1:8787; CEI_BASE_URL
// to change). Ids default to the sample's ones used in docs/api.md; the X account id depends on
// the installation's secret, so it is taken from the trending list.
import { callEveryOperation, ceiClient } from "./client.ts";

const key = process.env.CEI_KEY;
if (key === undefined || key === "") {
  process.stderr.write("set CEI_KEY to an API key (npm start prints one)\n");
  process.exit(2);
}
const client = ceiClient(process.env.CEI_BASE_URL ?? "http://127.0.0.1:8787", key);

const trendingX = await client.GET("/v1/discover/trending", { params: { query: { entity_type: "x_account", limit: 1 } } });
const xAccountId = process.env.CEI_X_ACCOUNT_ID ?? trendingX.data?.data.results[0]?.id;
if (xAccountId === undefined) throw new Error(`no X account id: HTTP ${trendingX.response.status} ${JSON.stringify(trendingX.error)}`);

const lines = await callEveryOperation(client, {
  projectSlug: process.env.CEI_PROJECT_SLUG ?? "lugex-labs",
  personSlug: process.env.CEI_PERSON_SLUG ?? "tobor-davur-6",
  personQuery: process.env.CEI_PERSON_QUERY ?? "tobor",
  tokenId: process.env.CEI_TOKEN_ID ?? "tok_0011",
  newsId: process.env.CEI_NEWS_ID ?? "story:0264af95-6903-418e-a6ae-902f67da17ce",
  xAccountId,
  eventSlug: process.env.CEI_EVENT_SLUG ?? "nebas-expo-2026",
  narrativeSlug: process.env.CEI_NARRATIVE_SLUG ?? "modular-data-availability",
  fundSlug: process.env.CEI_FUND_SLUG ?? "nimer-ventures",
  stockSlug: process.env.CEI_STOCK_SLUG ?? "romo-bank",
});
for (const [operation, line] of Object.entries(lines)) process.stdout.write(`${operation}: ${line}\n`);
