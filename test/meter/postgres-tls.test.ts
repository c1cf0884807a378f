// TLS to PostgreSQL: pg verifies sslmode=prefer, require and verify-ca as verify-full, unlike libpq,
// and warns on stderr in words that are not JSON. cei hands pg the mode it applies anyway and says
// so once, as a line of its own log; libpq's meaning stays available with uselibpqcompat=true.
import { describe, expect, it } from "vitest";
import { explicitTlsMode } from "../../server/meter/postgres/pool.ts";

describe("explicitTlsMode", () => {
  it.each(["prefer", "require", "verify-ca"])("sslmode=%s is given to pg as verify-full, with a note", (mode) => {
    const { url, note } = explicitTlsMode(`postgres://cei_reader@db.internal:5432/cei?sslmode=${mode}&sslrootcert=/etc/cei/db-ca.pem`);
    expect(new URL(url).searchParams.get("sslmode")).toBe("verify-full");
    expect(new URL(url).searchParams.get("sslrootcert")).toBe("/etc/cei/db-ca.pem");
    expect(note).toMatch(new RegExp(`^sslmode=${mode} is verified as sslmode=verify-full: .*uselibpqcompat=true&sslmode=${mode}`));
  });

  it.each([
    "postgres://cei@db/cei",
    "postgres://cei@db/cei?sslmode=verify-full",
    "postgres://cei@db/cei?sslmode=disable",
    "postgres://cei@db/cei?uselibpqcompat=true&sslmode=require",
  ])("leaves %s as it is", (given) => {
    expect(explicitTlsMode(given)).toEqual({ url: given });
  });
});
