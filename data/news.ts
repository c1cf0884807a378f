// news.jsonl: stories of the last 30 days about sample entities (projects, tokens, people, funds,
// stocks, narratives); most curated, some not.
import type { NewsSource } from "../compiler/families/news/source.ts";
import { fundIdentity, narrativeIdentity, personIdentity, projectIdentity, stockIdentity, tokenIdentity } from "./_identity.ts";
import { internalFields } from "./_internal.ts";
import { DAY, MINUTE, nextVisible, curatedProminence, visibility, iso, type Plan } from "./plan.ts";
import { rngFor, uuidFor, type Rng } from "./_prng.ts";

type EntityRef = NonNullable<NewsSource["entities"]>[number];

const SENTIMENTS = ["positive", "negative", "neutral", "mixed"] as const;
const LANGUAGES = ["en", "en", "en", "en", "en", "pt-BR", "ko", "ja", "de", "es"] as const;
const PUBLISHERS = ["Ledger Wire", "Block Desk", "Chain Post", "Token Beat"] as const;

/** Story 1 also names a hidden project: the compiler drops that link, not the story. */
const HIDDEN_REFERENCE_STORY = 1;
const HIDDEN_PROJECT = 17;

export const isCurated = (index: number): boolean => index % 9 !== 4;

export function* newsRecords(plan: Plan): Generator<NewsSource> {
  for (let k = 0; k < plan.counts.news; k += 1) yield newsRecord(plan, k);
}

function newsRecord(plan: Plan, k: number): NewsSource {
  const rng = rngFor("news", k);
  const id = `story:${uuidFor(rng, k)}`;
  const project = projectIdentity(nextVisible(plan, "projects", rng.int(0, plan.counts.projects - 1)));
  const token = tokenIdentity(nextVisible(plan, "tokens", rng.int(0, Math.min(plan.counts.tokens, 300) - 1)));
  const fund = fundIdentity(nextVisible(plan, "funds", rng.int(0, plan.counts.funds - 1)));
  const person = personIdentity(nextVisible(plan, "people", rng.int(0, plan.counts.people - 1)));
  const stock = stockIdentity(nextVisible(plan, "stocks", rng.int(0, plan.counts.stocks - 1)));
  const narrative = narrativeIdentity(nextVisible(plan, "narratives", rng.int(0, plan.counts.narratives - 1)));
  const { title, summary, entities } = story(rng, k % 7, { project, token, fund, person, stock, narrative });
  if (k === HIDDEN_REFERENCE_STORY && plan.counts.projects > HIDDEN_PROJECT) {
    entities.push({ type: "project", id: projectIdentity(HIDDEN_PROJECT).id });
  }
  const publisher = rng.pick(PUBLISHERS);
  return {
    id,
    title,
    summary,
    published_at: iso(plan.asOf - rng.int(10 * MINUTE, 30 * DAY)),
    sentiment: rng.pick(SENTIMENTS),
    language: rng.pick(LANGUAGES),
    curated: isCurated(k),
    entities,
    ...visibility("news", k),
    ...curatedProminence("news", k),
    ...(rng.chance(0.6)
      ? {
          url: `https://${publisher.toLowerCase().replace(/ /g, "")}.example/${id.slice(6, 14)}`,
          publisher: { name: publisher, country: rng.pick(["US", "UK", "SG", "KR"]) },
          body: `${summary} ${title}. Full article text as supplied by the publisher.`,
        }
      : {}),
    ...internalFields(rng, plan, id.slice(6, 14), 0.3),
  };
}

type Named = { id: string; name: string };

interface Cast {
  project: Named;
  token: Named & { symbol: string };
  fund: Named;
  person: { id: string; full_name: string };
  stock: Named;
  narrative: Named;
}

function story(rng: Rng, template: number, { project, token, fund, person, stock, narrative }: Cast) {
  const amount = rng.int(2, 80);
  const pct = rng.int(3, 40);
  const ref = (type: EntityRef["type"], id: string): EntityRef => ({ type, id });
  switch (template) {
    case 0:
      return {
        title: `${project.name} raises $${amount}M in a round led by ${fund.name}`,
        summary: `${fund.name} led a $${amount}M round in ${project.name}; ${person.full_name} joined as an angel.`,
        entities: [ref("project", project.id), ref("fund", fund.id), ref("person", person.id)],
      };
    case 1:
      return {
        title: `${token.symbol} moves ${pct}% as ${project.name} ships its mainnet`,
        summary: `${token.name} traded ${pct}% away from last week's level after ${project.name} went live.`,
        entities: [ref("token", token.id), ref("project", project.id)],
      };
    case 2:
      return {
        title: `${person.full_name} joins ${project.name} as chief technology officer`,
        summary: `${project.name} hired ${person.full_name}, previously an adviser to ${fund.name} portfolio teams.`,
        entities: [ref("person", person.id), ref("project", project.id), ref("fund", fund.id)],
      };
    case 3:
      return {
        title: `${fund.name} opens a $${amount * 5}M fund for on-chain infrastructure`,
        summary: `The new ${fund.name} vehicle targets early teams; ${person.full_name} will lead it.`,
        entities: [ref("fund", fund.id), ref("person", person.id)],
      };
    case 5:
      return {
        title: `${stock.name} adds ${token.symbol} to its balance sheet`,
        summary: `${stock.name} disclosed a position in ${token.name}; ${fund.name} is among its shareholders.`,
        entities: [ref("stock", stock.id), ref("token", token.id), ref("fund", fund.id)],
      };
    case 6:
      return {
        title: `${narrative.name} draws new builders as ${project.name} grows ${pct}%`,
        summary: `Activity around ${narrative.name.toLowerCase()} rose ${pct}% this month, led by ${project.name}.`,
        entities: [ref("narrative", narrative.id), ref("project", project.id)],
      };
    default:
      return {
        title: `${project.name} governance approves ${token.symbol} staking changes`,
        summary: `Holders of ${token.name} voted to change staking rewards on ${project.name}.`,
        entities: [ref("project", project.id), ref("token", token.id)],
      };
  }
}
