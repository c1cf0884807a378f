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

/** Whether the referenced record exists. Pass qualified outer columns: an unqualified `id` would bind to `t.id`. */
const known = (typeColumn: string, idColumn: string): string => `CASE ${typeColumn}
  WHEN 'project' THEN EXISTS (SELECT 1 FROM s_projects t WHERE t.id = ${idColumn})
  WHEN 'token' THEN EXISTS (SELECT 1 FROM s_tokens t WHERE t.id = ${idColumn})
  WHEN 'person' THEN EXISTS (SELECT 1 FROM s_people t WHERE t.id = ${idColumn})
  WHEN 'fund' THEN EXISTS (SELECT 1 FROM s_funds t WHERE t.id = ${idColumn})
  WHEN 'x_account' THEN EXISTS (SELECT 1 FROM s_x t WHERE t.xid = ${idColumn})
  ELSE 0 END`;

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
  `${into} SELECT 'people.jsonl', person_line, printf('investments[%d].project_id', idx), printf('unknown project %s', json_quote(project_id))
   FROM s_investments WHERE NOT EXISTS (SELECT 1 FROM s_projects p WHERE p.id = project_id);`,
  `${into} SELECT 'people.jsonl', i.person_line, printf('investments[%d].round_id', i.idx),
     printf('round %s is not a funding round of project %s', json_quote(i.round_id), json_quote(i.project_id))
   FROM s_investments i
   WHERE i.round_id IS NOT NULL AND EXISTS (SELECT 1 FROM s_projects p WHERE p.id = i.project_id)
     AND NOT EXISTS (SELECT 1 FROM s_projects p JOIN s_rounds r ON r.project_line = p.line WHERE p.id = i.project_id AND r.id = i.round_id);`,
  `${into} SELECT 'people.jsonl', person_line, printf('roles[%d].project_id', idx), printf('unknown project %s', json_quote(project_id))
   FROM s_roles WHERE NOT EXISTS (SELECT 1 FROM s_projects p WHERE p.id = project_id);`,
  `${into} SELECT 'tokens.jsonl', line, 'project_id', printf('unknown project %s', json_quote(project_id))
   FROM s_tokens WHERE project_id IS NOT NULL AND NOT EXISTS (SELECT 1 FROM s_projects p WHERE p.id = project_id);`,
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
     WHEN 'project' THEN EXISTS (SELECT 1 FROM s_projects t WHERE t.id = x.linked_id AND t.hidden = 0 AND t.deleted = 0)
     ELSE EXISTS (SELECT 1 FROM s_people t WHERE t.id = x.linked_id AND t.hidden = 0 AND t.deleted = 0) END));`,
];
