// A meter location (--meter): which backend it names, and how it may be printed (error messages,
// logs): whatever form it was given in, no secret of it. Redacting too much (a host name lost in
// a malformed URL) is preferred to redacting too little.
//
// Secrets: the password of a URL's userinfo, and the parameters `password` and `sslpassword` (the
// passphrase of the client key) of libpq's list, in a URL's query or a keyword/value string, and any
// other parameter whose name contains "password". Not secrets: `sslkey`, `sslcert`, `sslrootcert`,
// `passfile` (paths of files that hold them; the files are protected by their modes) and the user
// name. cei takes only postgres:// URLs; a keyword/value string ("host=... password=...") given
// by mistake is taken as a SQLite file path, and redacted all the same when printed. cei never
// prints its environment, so PGPASSWORD is never echoed.

/** A postgres:// or postgresql:// URL names a PostgreSQL meter; anything else is a SQLite file path. */
export function isPostgresUrl(location: string): boolean {
  return /^postgres(ql)?:\/\//i.test(location);
}

const SCHEME = /^([a-z][a-z0-9+.-]*:\/\/)/i;
/** `name=value` in a query: the name percent-decoded, as pg's parser (URLSearchParams) reads it. */
const QUERY_PARAMETER = /([?&;])([^=&#;]*)=([^&#;]*)/g;
/** `name = value` of a keyword/value string; the value single-quoted (with backslash escapes) or up to a space. */
const KEYWORD_PARAMETER = /(^|\s)([a-z_]+)(\s*=\s*)('(?:[^'\\]|\\.)*(?:'|$)|\S*)/gi;

function _isSecret(name: string): boolean {
  let decoded = name;
  try {
    decoded = decodeURIComponent(name.replace(/\+/g, " "));
  } catch {
    // A malformed escape: judged by the name as written.
  }
  return /password/i.test(decoded);
}

function _redactQuery(text: string): string {
  return text.replace(QUERY_PARAMETER, (whole, separator: string, name: string) => (_isSecret(name) ? `${separator}${name}=***` : whole));
}

/**
 * The userinfo is everything before the last "@" (a password may hold "@", ":" or "/"); its
 * password everything after the first ":". An "@" with no ":" before it and a "/", "?" or "#"
 * in front of it belongs to the path or the query, not to a userinfo.
 */
function _redactUrl(scheme: string, rest: string): string {
  const at = rest.lastIndexOf("@");
  const userinfo = at < 0 ? "" : rest.slice(0, at);
  const colon = userinfo.indexOf(":");
  if (at < 0 || (colon < 0 && /[/?#]/.test(userinfo))) return scheme + _redactQuery(rest);
  const user = colon < 0 ? userinfo : `${userinfo.slice(0, colon)}:***`;
  return `${scheme}${user}@${_redactQuery(rest.slice(at + 1))}`;
}

/** The location as it may be printed: a URL's password and every secret parameter replaced by ***. */
export function redactUrl(location: string): string {
  const scheme = SCHEME.exec(location);
  if (scheme !== null) return _redactUrl(scheme[1]!, location.slice(scheme[1]!.length));
  return location.replace(KEYWORD_PARAMETER, (whole, start: string, name: string, equals: string) => (_isSecret(name) ? `${start}${name}${equals}***` : whole));
}
