// Content negotiation for the public reference paths: which stored encoding to send.

/** The request headers that choose a representation. */
export interface RepresentationRequest {
  acceptEncoding: string | undefined;
  ifNoneMatch: string | undefined;
}

/**
 * br when the client accepts it (smallest), else gzip, else the original. A coding is accepted
 * when named, or covered by `*`, with a q-value above 0; `identity` is always acceptable here,
 * since every client can read it.
 */
export function chooseEncoding(acceptEncoding: string | undefined): "br" | "gzip" | "identity" {
  if (acceptEncoding === undefined || acceptEncoding === "") return "identity";
  const weights = new Map<string, number>();
  for (const part of acceptEncoding.toLowerCase().split(",")) {
    const [coding, ...parameters] = part.split(";").map((piece) => piece.trim());
    if (coding === undefined || coding === "") continue;
    const q = parameters.find((parameter) => parameter.startsWith("q="));
    const weight = q === undefined ? 1 : Number(q.slice(2));
    weights.set(coding, Number.isFinite(weight) ? weight : 0);
  }
  const accepted = (coding: string) => (weights.get(coding) ?? weights.get("*") ?? 0) > 0;
  if (accepted("br")) return "br";
  if (accepted("gzip") || accepted("x-gzip")) return "gzip";
  return "identity";
}
