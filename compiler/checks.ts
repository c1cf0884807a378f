// Step 3: cross-record checks over the staging tables. Each yields `file:line: path: message`
// rows in the problems table, beside the validation problems of step 1.

const into = "INSERT INTO problems (file, line, path, message)";

/** A later record repeating an earlier record's key. */
function duplicate(table: string, file: string, column: string, path: string, label: string): string {
  return `${into}
  SELECT '${file}', line, '${path}', printf('duplicate ${label} %s (first on line %d)', json_quote(${column}), first)
  FROM (SELECT line, ${column}, min(line) OVER (PARTITION BY ${column}) AS first FROM ${table} WHERE ${column} IS NOT NULL)
  WHERE line > first;`;
}

/** A later item of a record's list repeating an earlier item's id. */
function nestedDuplicate(table: string, list: string, column: string): string {
  return `${into}
  SELECT 'projects.jsonl', project_line, printf('${list}[%d].${column}', idx),
    printf('duplicate ${column} %s (first at ${list}[%d])', json_quote(${column}), first)
  FROM (SELECT project_line, idx, ${column}, min(idx) OVER (PARTITION BY project_line, ${column}) AS first FROM ${table})
  WHERE idx > first;`;
}

/** The staging table of each referenced type, its id column, and its table of invalid records. */
const referenced: Record<string, { table: string; id: string; invalid: string }> = {
  project: { table: "s_projects", id: "id", invalid: "s_projects_invalid" },
  token: { table: "s_tokens", id: "id", invalid: "s_tokens_invalid" },
  person: { table: "s_people", id: "id", invalid: "s_people_invalid" },
  fund: { table: "s_funds", id: "id", invalid: "s_funds_invalid" },
  x_account: { table: "s_x", id: "xid", invalid: "s_x_invalid" },
};

/**
 * Whether a record of `type` with that id exists, valid or not: a record that failed validation
 * is reported once, for its own mistake, and not again at every reference to it.
 */
const exists = (type: string, idColumn: string): string => {
  const r = referenced[type]!;
  return `(EXISTS (SELECT 1 FROM ${r.table} t WHERE t.${r.id} = ${idColumn}) OR EXISTS (SELECT 1 FROM ${r.invalid} t WHERE t.id = ${idColumn}))`;
};

/** Whether the referenced record exists (see `exists`). Pass qualified outer columns: an unqualified `id` would bind to `t.id`. */
const known = (typeColumn: string, idColumn: string): string =>
  `CASE ${typeColumn} ${Object.keys(referenced).map((type) => `WHEN '${type}' THEN ${exists(type, idColumn)}`).join(" ")} ELSE 0 END`;

const invalid = (type: string, idColumn: string): string => `EXISTS (SELECT 1 FROM ${referenced[type]!.invalid} t WHERE t.id = ${idColumn})`;

export const crossRecordChecks: readonly string[] = [
  duplicate("s_projects", "projects.jsonl", "id", "id", "id"),
  duplicate("s_projects", "projects.jsonl", "slug", "slug", "slug"),
  duplicate("s_tokens", "tokens.jsonl", "id", "id", "id"),
  duplicate("s_people", "people.jsonl", "id", "id", "id"),
  duplicate("s_people", "people.jsonl", "slug", "slug", "slug"),
  duplicate("s_funds", "funds.jsonl", "id", "id", "id"),
  duplicate("s_funds", "funds.jsonl", "slug", "slug", "slug"),
  duplicate("s_stocks", "stocks.jsonl", "id", "id", "id"),
  duplicate("s_stocks", "stocks.jsonl", "slug", "slug", "slug"),
  duplicate("s_news", "news.jsonl", "id", "id", "id"),
  duplicate("s_events", "events.jsonl", "id", "id", "id"),
  duplicate("s_events", "events.jsonl", "slug", "slug", "slug"),
  `${into} SELECT 'x_accounts.jsonl', line, 'handle', printf('duplicate X handle (first on line %d)', first)
   FROM (SELECT line, min(line) OVER (PARTITION BY xid) AS first FROM s_x) WHERE line > first;`,
  duplicate("s_tokens", "tokens.jsonl", "benchmark", "benchmark", "benchmark"),
  nestedDuplicate("s_features", "features", "feature_id"),
  nestedDuplicate("s_pevents", "events", "id"),
  nestedDuplicate("s_rounds", "funding", "id"),

  `${into} SELECT 'projects.jsonl', i.project_line, printf('funding[%d].investors[%d].id', i.round_idx, i.idx),
     printf('unknown %s %s', i.type, json_quote(i.id))
   FROM s_round_investors i WHERE NOT ${known("i.type", "i.id")};`,
  `${into} SELECT 'people.jsonl', i.person_line, printf('investments[%d].project_id', i.idx), printf('unknown project %s', json_quote(i.project_id))
   FROM s_investments i WHERE NOT ${exists("project", "i.project_id")};`,
  `${into} SELECT 'people.jsonl', i.person_line, printf('investments[%d].round_id', i.idx),
     printf('round %s is not a funding round of project %s', json_quote(i.round_id), json_quote(i.project_id))
   FROM s_investments i
   WHERE i.round_id IS NOT NULL AND EXISTS (SELECT 1 FROM s_projects p WHERE p.id = i.project_id)
     AND NOT EXISTS (SELECT 1 FROM s_projects p JOIN s_rounds r ON r.project_line = p.line WHERE p.id = i.project_id AND r.id = i.round_id);`,
  `${into} SELECT 'people.jsonl', r.person_line, printf('roles[%d].project_id', r.idx), printf('unknown project %s', json_quote(r.project_id))
   FROM s_roles r WHERE NOT ${exists("project", "r.project_id")};`,
  `${into} SELECT 'tokens.jsonl', k.line, 'project_id', printf('unknown project %s', json_quote(k.project_id))
   FROM s_tokens k WHERE k.project_id IS NOT NULL AND NOT ${exists("project", "k.project_id")};`,
  `${into} SELECT 'events.jsonl', line, 'end_date', printf('end_date %s is before start_date %s', end_date, start_date)
   FROM s_events WHERE end_date < start_date;`,
  `${into} SELECT 'news.jsonl', e.news_line, printf('entities[%d].id', e.idx), printf('unknown %s %s', e.type, json_quote(e.id))
   FROM s_news_entities e WHERE NOT ${known("e.type", "e.id")};`,
  `${into} SELECT 'trending.jsonl', s.line, CASE s.entity_type WHEN 'x_account' THEN 'entity.handle' ELSE 'entity.id' END,
     CASE s.entity_type WHEN 'x_account' THEN 'unknown X account: no record of x_accounts.jsonl has this handle'
       ELSE printf('unknown %s %s', s.entity_type, json_quote(s.entity_id)) END
   FROM s_trending s WHERE s.entity_id IS NULL OR NOT ${known("s.entity_type", "s.entity_id")};`,
  // An X account that is itself visible must link to a visible record (a hidden account may
  // keep its link to a record that was hidden with it).
  `${into} SELECT 'x_accounts.jsonl', x.line, 'linked_entity.id',
     CASE WHEN NOT ${known("x.linked_type", "x.linked_id")} THEN printf('unknown %s %s', x.linked_type, json_quote(x.linked_id))
       ELSE printf('%s %s is hidden or deleted', x.linked_type, json_quote(x.linked_id)) END
   FROM s_x x
   WHERE x.linked_type IS NOT NULL AND (NOT ${known("x.linked_type", "x.linked_id")} OR (x.hidden = 0 AND x.deleted = 0 AND NOT CASE x.linked_type
     WHEN 'project' THEN EXISTS (SELECT 1 FROM s_projects t WHERE t.id = x.linked_id AND t.hidden = 0 AND t.deleted = 0) OR ${invalid("project", "x.linked_id")}
     ELSE EXISTS (SELECT 1 FROM s_people t WHERE t.id = x.linked_id AND t.hidden = 0 AND t.deleted = 0) OR ${invalid("person", "x.linked_id")} END));`,
];
