// Events: in-person events, kept once their dates are validated.
import { defineFamily } from "../define.ts";
import { duplicate, intoProblems, visibilityCounts } from "../_sql.ts";
import { bit, nullable } from "../_values.ts";
import { eventSource } from "./source.ts";

export const events = defineFamily({
  family: "events",
  file: "events.jsonl",
  schema: eventSource,
  staging: {
    tables: {
      s_events: {
        line: "INTEGER", id: "TEXT", slug: "TEXT", name: "TEXT", event_type: "TEXT", start_date: "TEXT", end_date: "TEXT",
        city: "TEXT", country: "TEXT", website_url: "TEXT", dates_validated: "INTEGER", hidden: "INTEGER", deleted: "INTEGER", prominence: "INTEGER",
      },
    },
    rows(r, line, to) {
      to("s_events").push(line, r.id, r.slug, r.name, r.event_type, r.start_date, r.end_date, r.city, r.country, nullable(r.website_url),
        bit(r.dates_validated), bit(r.hidden), bit(r.deleted), nullable(r.prominence));
    },
    indexSql: [
      "CREATE INDEX s_events_id ON s_events (id);",
      "CREATE INDEX s_events_slug ON s_events (slug);",
    ].join("\n"),
  },
  checks: () => [
    duplicate("s_events", "events.jsonl", "id", "id", "id"),
    duplicate("s_events", "events.jsonl", "slug", "slug", "slug"),
    `${intoProblems} SELECT 'events.jsonl', line, 'end_date', printf('end_date %s is before start_date %s', end_date, start_date)
   FROM s_events WHERE end_date < start_date;`,
  ],
  eligibility: () => "\nCREATE TABLE kept.k_events AS SELECT * FROM s_events WHERE hidden = 0 AND deleted = 0 AND dates_validated = 1;",
  exclusions: () => ({
    ...visibilityCounts("s_events"),
    event_dates_not_validated: "(SELECT count(*) FROM s_events WHERE hidden = 0 AND deleted = 0 AND dates_validated = 0)",
  }),
  output: "INSERT INTO events SELECT id, slug, name, event_type, start_date, end_date, city, country, website_url FROM k_events ORDER BY id;",
  search: { layout: "event", curated: { table: "k_events", id: "id" } },
  diff: "events",
  curated: { events: "(SELECT count(*) FROM s_events)" },
});
