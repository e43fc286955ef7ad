/**
 * Checks an answer of the API against the OpenAPI document: the operation of its method and
 * path, the status among that operation's documented ones, and the body against that status's
 * schema (JSON Schema 2020-12, with formats, by Ajv). The route tests' client runs it on every
 * answer, so the document cannot drift from what the service does.
 */
import addFormats from "ajv-formats";
import { Ajv2020, type ValidateFunction } from "ajv/dist/2020";
import type { OpenApiDocument } from "./document";

export interface Answer {
  method: string;
  /** The request's path, with or without a query string. */
  url: string;
  status: number;
  contentType: string | null;
  /** The body as text (`""` for none). */
  body: string;
  /** When given, the headers the document requires are checked too. */
  headers?: Headers;
}

const DOCUMENT_ID = "openapi.json";

export class AnswerValidator {
  private readonly ajv: Ajv2020;
  private readonly templates: { path: string; pattern: RegExp }[];
  private readonly compiled = new Map<string, ValidateFunction>();

  constructor(private readonly document: OpenApiDocument) {
    this.ajv = new Ajv2020({ strict: false, allErrors: true });
    addFormats(this.ajv);
    this.ajv.addSchema(document, DOCUMENT_ID);
    // Literal segments before parameters, so `/v2/users/me` is not read as `/v2/users/{id}`.
    this.templates = Object.keys(document.paths)
      .map((path) => ({
        path,
        pattern: new RegExp(`^${path.replace(/[.*+?^$()|[\]\\]/g, "\\$&").replace(/\{[^}]+\}/g, "[^/]+")}$`),
      }))
      .sort((a, b) => a.path.split("{").length - b.path.split("{").length);
  }

  /** The documented path a request path falls under, if any. */
  template(pathname: string): string | undefined {
    return this.templates.find(({ pattern }) => pattern.test(pathname))?.path;
  }

  /**
   * Every way the answer departs from the document (none: `[]`), for the operation of the
   * documented `path` given, else of the path the request's URL falls under.
   */
  problems(answer: Answer, documentedPath?: string): string[] {
    const pathname = new URL(answer.url, "http://localhost").pathname;
    const where = `${answer.method.toUpperCase()} ${pathname} → ${answer.status}`;
    const path = documentedPath ?? this.template(pathname);
    if (!path || !this.document.paths[path]) return [`${where}: the path is not in the OpenAPI document`];
    const method = answer.method.toLowerCase() as keyof OpenApiDocument["paths"][string];
    const operation = this.document.paths[path][method];
    if (!operation) return [`${where}: ${method.toUpperCase()} ${path} is not in the OpenAPI document`];
    const response = operation.responses[String(answer.status)];
    if (!response) return [`${where}: status ${answer.status} is not documented for ${method.toUpperCase()} ${path}`];

    const missing = this.requiredHeaders(response.headers).filter(
      (name) => answer.headers && !answer.headers.has(name),
    );
    const headerProblems = missing.map((name) => `${where}: the documented header ${name} is missing`);
    return [...headerProblems, ...this.bodyProblems(answer, where, path, method, response)];
  }

  private bodyProblems(
    answer: Answer,
    where: string,
    path: string,
    method: string,
    response: { content?: unknown },
  ): string[] {
    if (!response.content) return answer.body === "" ? [] : [`${where}: documented without a body, but one was sent`];
    const streamed = Object.keys(response.content as Record<string, unknown>).filter(
      (type) => type === "text/csv" || type === "application/x-ndjson",
    );
    if (streamed.length > 0)
      return streamed.some((type) => answer.contentType?.startsWith(type))
        ? []
        : [`${where}: Content-Type is ${answer.contentType}, not ${streamed.join(" or ")}`];
    if (!answer.contentType?.startsWith("application/json"))
      return [`${where}: Content-Type is ${answer.contentType}, not JSON`];
    let body: unknown;
    try {
      body = JSON.parse(answer.body);
    } catch {
      return [`${where}: the body is not JSON`];
    }
    const validate = this.validator(path, method, String(answer.status));
    if (validate(body)) return [];
    return (validate.errors ?? []).map(
      (error) =>
        `${where}: body${error.instancePath} ${error.message} (${error.schemaPath}${error.params ? ` ${JSON.stringify(error.params)}` : ""})`,
    );
  }

  /** The names of a response's headers marked `required` (directly or in the component). */
  private requiredHeaders(headers: Record<string, { $ref?: string; required?: boolean }> | undefined): string[] {
    const components = (this.document.components.headers ?? {}) as Record<string, { required?: boolean }>;
    return Object.entries(headers ?? {})
      .filter(([, header]) => (header.$ref ? components[header.$ref.split("/").pop()!]?.required : header.required))
      .map(([name]) => name);
  }

  private validator(path: string, method: string, status: string): ValidateFunction {
    const key = `${method} ${path} ${status}`;
    let validate = this.compiled.get(key);
    if (!validate) {
      const pointer = ["paths", path, method, "responses", status, "content", "application/json", "schema"]
        .map((part) => part.replace(/~/g, "~0").replace(/\//g, "~1"))
        .map(encodeURIComponent)
        .join("/");
      validate = this.ajv.compile({ $ref: `${DOCUMENT_ID}#/${pointer}` });
      this.compiled.set(key, validate);
    }
    return validate;
  }
}
