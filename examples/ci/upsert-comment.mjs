// Posts a Markdown file as a comment on a pull request, or updates the comment it posted before
// (found by the marker its body starts with), so that a pull request holds one cei diff comment
// however often it is pushed to. Plain Node.js (22 or later: fetch), no dependencies.
//
//   node upsert-comment.mjs <file.md>
//
// Environment: GITHUB_TOKEN (pull-requests: write), GITHUB_REPOSITORY (owner/name), CEI_PR_NUMBER,
// GITHUB_API_URL (set by GitHub Actions; default https://api.github.com).
import { readFileSync } from "node:fs";

const MARKER = "<!-- cei diff -->";
/** GitHub refuses a comment body longer than this (cei diff stays well below it). */
const GITHUB_COMMENT_LIMIT = 65_536;

function setting(name) {
  const value = process.env[name];
  if (value === undefined || value === "") {
    process.stderr.write(`upsert-comment: ${name} is not set\n`);
    process.exit(2);
  }
  return value;
}

const [file] = process.argv.slice(2);
if (file === undefined) {
  process.stderr.write("usage: node upsert-comment.mjs <file.md>\n");
  process.exit(2);
}
const api = (process.env.GITHUB_API_URL || "https://api.github.com").replace(/\/+$/, "");
const [repository, number, token] = [setting("GITHUB_REPOSITORY"), setting("CEI_PR_NUMBER"), setting("GITHUB_TOKEN")];
let body = `${MARKER}\n${readFileSync(file, "utf8")}`;
if (body.length > GITHUB_COMMENT_LIMIT) body = `${body.slice(0, GITHUB_COMMENT_LIMIT - 64)}\n\n… cut at GitHub's limit for a comment\n`;

async function github(method, path, payload) {
  const response = await fetch(`${api}${path}`, {
    method,
    headers: {
      authorization: `Bearer ${token}`,
      accept: "application/vnd.github+json",
      "x-github-api-version": "2022-11-28",
      ...(payload === undefined ? {} : { "content-type": "application/json" }),
    },
    body: payload === undefined ? undefined : JSON.stringify(payload),
  });
  if (!response.ok) throw new Error(`${method} ${path}: ${response.status} ${await response.text()}`);
  return response.json();
}

let earlier;
for (let page = 1; earlier === undefined; page++) {
  const comments = await github("GET", `/repos/${repository}/issues/${number}/comments?per_page=100&page=${page}`);
  earlier = comments.find((comment) => typeof comment.body === "string" && comment.body.startsWith(MARKER));
  if (comments.length < 100) break;
}
if (earlier === undefined) {
  const posted = await github("POST", `/repos/${repository}/issues/${number}/comments`, { body });
  process.stdout.write(`posted ${posted.html_url}\n`);
} else {
  const updated = await github("PATCH", `/repos/${repository}/issues/comments/${earlier.id}`, { body });
  process.stdout.write(`updated ${updated.html_url}\n`);
}
