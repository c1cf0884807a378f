// An independent check of every answer against the OpenAPI document: ajv (draft 2020-12) compiled
// from the document's own schemas, never from zod. A status the operation does not list, a body
// or header that its schema refuses, or an API header the response does not describe is a problem.
import { readFileSync } from "node:fs";
import { Ajv2020, type ValidateFunction } from "ajv/dist/2020.js";
import addFormatsModule from "ajv-formats";
import { buildOpenApi } from "../../server/openapi/document.ts";

const addFormats = addFormatsModule as unknown as (ajv: Ajv2020) => void;
const COMMITTED = new URL("../../docs/openapi.json", import.meta.url);

/** Headers that carry the API's own contract; any of them must be described where it is sent. */
const API_HEADER = /^(x-service-.*|cache-control|ratelimit|ratelimit-policy|retry-after)$/;

export interface ObservedResponse {
  status: number;
  headers: Headers;
  text: string;
}

const unknownRouteResponses: Record<number, string> = { 401: "InvalidApiKey", 403: "Forbidden", 404: "NotFound", 429: "RateLimited" };

interface Json { [key: string]: unknown }
interface Operation { pattern: RegExp; params: number; method: string; pointer: string; responses: Json }

const _escape = (segment: string) => segment.replaceAll("~", "~0").replaceAll("/", "~1");

export class OpenApiContract {
  readonly document: Json;
  readonly #ajv = new Ajv2020({ strict: true, allErrors: true });
  readonly #operations: Operation[] = [];
  readonly #compiled = new Map<string, ValidateFunction>();

  constructor(document: Json) {
    this.document = document;
    addFormats(this.#ajv);
    this.#ajv.addVocabulary(Object.keys(document));
    this.#ajv.addSchema(document, "openapi.json");
    for (const [path, item] of Object.entries(document.paths as Record<string, Record<string, Json>>)) {
      const params = (path.match(/\{[^}]+\}/g) ?? []).length;
      // An empty segment where a parameter belongs reaches the operation (and fails its length rule).
      // A trailing slash names the same operation (docs/api.md).
      const pattern = new RegExp(`^${path.replace(/\{[^}]+\}/g, "[^/]*")}/?$`);
      for (const [method, operation] of Object.entries(item)) {
        const pointer = `#/paths/${_escape(path)}/${method}`;
        this.#operations.push({ pattern, params, method: method.toUpperCase(), pointer, responses: operation.responses as Json });
      }
    }
    // A static path wins over a parameter in the same place (/v1/projects/trending vs /{slug}).
    this.#operations.sort((a, b) => a.params - b.params);
  }

  /** Everything the document does not say about this answer; empty when it is described exactly. */
  problems(method: string, url: string, response: ObservedResponse): string[] {
    const pathname = new URL(url, "http://localhost").pathname;
    const operation = this.#operations.find((candidate) => candidate.method === method && candidate.pattern.test(pathname));
    if (operation === undefined) return this.#unknownRoute(method, response);
    const declared = operation.responses[String(response.status)] as Json | undefined;
    if (declared === undefined) return [`${method} ${pathname}: status ${response.status} is not documented`];
    const [pointer, described] = this.#resolve(`${operation.pointer}/responses/${response.status}`, declared);
    return this.#check(`${method} ${pathname} ${response.status}`, pointer, described, method, response);
  }

  /** Throws with every problem found. */
  expectDescribed(method: string, url: string, response: ObservedResponse): void {
    const problems = this.problems(method, url, response);
    if (problems.length > 0) throw new Error(`the OpenAPI document does not describe this response:\n${problems.join("\n")}\n${response.text.slice(0, 500)}`);
  }

  /** Any other path or method: the document's info says 401 without a key, 403 for a disabled one, 429 over the window, else 404. */
  #unknownRoute(method: string, response: ObservedResponse): string[] {
    const name = unknownRouteResponses[response.status];
    if (name === undefined) return [`${method}: no documented operation, and status ${response.status} is not 401, 403, 404 or 429`];
    const pointer = `#/components/responses/${name}`;
    return this.#check(`${method} (unknown route) ${response.status}`, pointer, this.#at(pointer), method, response);
  }

  #check(where: string, pointer: string, described: Json, method: string, response: ObservedResponse): string[] {
    const problems: string[] = [];
    const headers = (described.headers ?? {}) as Record<string, Json>;
    const lowerNames = new Map(Object.keys(headers).map((name) => [name.toLowerCase(), name]));
    for (const [name, header] of Object.entries(headers)) {
      const value = response.headers.get(name);
      if (value === null) {
        if (header.required === true) problems.push(`${where}: required header ${name} is missing`);
        continue;
      }
      const validate = this.#validator(`${pointer}/headers/${_escape(name)}/schema`);
      if (!validate(value)) problems.push(`${where}: header ${name}: ${JSON.stringify(value)} ${this.#ajv.errorsText(validate.errors)}`);
    }
    for (const [name] of response.headers) {
      if (API_HEADER.test(name) && !lowerNames.has(name)) problems.push(`${where}: header ${name} is not described`);
    }
    const content = described.content as Record<string, Json> | undefined;
    if (method === "HEAD" && response.text === "") return problems;
    if (content === undefined) return response.text === "" ? problems : [...problems, `${where}: a body is sent where none is described`];
    const mediaType = (response.headers.get("content-type") ?? "").split(";")[0]!.trim();
    if (content[mediaType] === undefined) return [...problems, `${where}: content-type ${JSON.stringify(mediaType)} is not described`];
    // The page and llms.txt are text: their media type is the contract.
    if (mediaType !== "application/json") return problems;
    let body: unknown;
    try {
      body = JSON.parse(response.text);
    } catch {
      return [...problems, `${where}: the body is not JSON`];
    }
    const validate = this.#validator(`${pointer}/content/application~1json/schema`);
    if (!validate(body)) problems.push(`${where}: body: ${this.#ajv.errorsText(validate.errors)}`);
    return problems;
  }

  /** Follows a response's `$ref` (to components.responses) and returns where the object really is. */
  #resolve(pointer: string, value: Json): [string, Json] {
    if (typeof value.$ref !== "string") return [pointer, value];
    return [value.$ref, this.#at(value.$ref)];
  }

  #at(pointer: string): Json {
    let value: unknown = this.document;
    for (const segment of pointer.slice(2).split("/")) {
      value = (value as Json)[segment.replaceAll("~1", "/").replaceAll("~0", "~")];
    }
    if (value === undefined) throw new Error(`the document has nothing at ${pointer}`);
    return value as Json;
  }

  #validator(pointer: string): ValidateFunction {
    let validate = this.#compiled.get(pointer);
    if (validate === undefined) {
      validate = this.#ajv.compile({ $ref: `openapi.json${pointer}` });
      this.#compiled.set(pointer, validate);
    }
    return validate;
  }
}

const contracts = new Map<boolean, OpenApiContract>();

/**
 * The committed docs/openapi.json; with the hidden operation released, the document generated
 * with it (test/openapi/document.test.ts proves the committed file is what the generator writes).
 */
export function openApiContract(releaseTrendingProjects = false): OpenApiContract {
  let contract = contracts.get(releaseTrendingProjects);
  if (contract === undefined) {
    const document = releaseTrendingProjects
      ? (buildOpenApi({ releaseTrendingProjects: true, examples: {} }) as Json)
      : (JSON.parse(readFileSync(COMMITTED, "utf8")) as Json);
    contract = new OpenApiContract(document);
    contracts.set(releaseTrendingProjects, contract);
  }
  return contract;
}
