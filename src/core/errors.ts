/**
 * @module errors
 * The one error type every lemon API rejects with, and the code union the CLI maps to exit codes.
 */

export type ErrorCode =
  | "INVALID_REQUEST"
  | "INVALID_PARAMS"
  | "NOT_FOUND"
  | "CONFLICT"
  | "FORBIDDEN"
  | "UNAUTHORIZED"
  | "UNAVAILABLE"
  | "TIMEOUT"
  | "OPERATION_FAILED";

export interface LemonErrorOptions {
  hint?: string;
  /** Redacted structured values only (hashes, reasons, key lists); never raw config or secrets. */
  details?: Record<string, unknown>;
  cause?: unknown;
}

/** A failed call. `message` is one line naming the file or field and the problem. */
export class LemonError extends Error {
  override readonly name = "LemonError";
  readonly code: ErrorCode;
  readonly hint?: string;
  readonly details?: Record<string, unknown>;

  constructor(code: ErrorCode, message: string, opts: LemonErrorOptions = {}) {
    super(message, { cause: opts.cause });
    this.code = code;
    if (opts.hint !== undefined) this.hint = opts.hint;
    if (opts.details !== undefined) this.details = opts.details;
  }

  /** Checks the name rather than the prototype so two copies of the module agree. */
  static is(x: unknown): x is LemonError {
    return x instanceof Error && x.name === "LemonError" && typeof (x as { code?: unknown }).code === "string";
  }
}

export const invalidParams = (message: string, opts?: LemonErrorOptions) =>
  new LemonError("INVALID_PARAMS", message, opts);
export const invalidRequest = (message: string, opts?: LemonErrorOptions) =>
  new LemonError("INVALID_REQUEST", message, opts);
export const notFound = (message: string, opts?: LemonErrorOptions) => new LemonError("NOT_FOUND", message, opts);
export const conflict = (message: string, opts?: LemonErrorOptions) => new LemonError("CONFLICT", message, opts);
export const forbidden = (message: string, opts?: LemonErrorOptions) => new LemonError("FORBIDDEN", message, opts);

/** Anything thrown becomes a LemonError; unknown failures are OPERATION_FAILED without leaking a stack. */
export function toLemonError(err: unknown): LemonError {
  if (LemonError.is(err)) return err;
  if (err instanceof Error) {
    const errno = (err as NodeJS.ErrnoException).code;
    const msg = err.message.split("\n")[0] ?? "internal error";
    if (errno === "EACCES" || errno === "EPERM") return new LemonError("FORBIDDEN", msg, { cause: err });
    if (errno === "ENOENT") return new LemonError("NOT_FOUND", msg, { cause: err });
    return new LemonError("OPERATION_FAILED", msg || "internal error", { cause: err });
  }
  return new LemonError("OPERATION_FAILED", "internal error");
}

/** What an argument of the public API must be; a list of strings is an enumeration. */
export type ArgKind =
  | "string"
  | "boolean"
  | "number"
  | "integer"
  | "function"
  | "object"
  | "array"
  | "string[]"
  | readonly string[];

const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === "object" && v !== null && !Array.isArray(v);

function matches(v: unknown, kind: ArgKind): boolean {
  if (typeof kind !== "string") return typeof v === "string" && kind.includes(v);
  switch (kind) {
    case "integer":
      return Number.isInteger(v);
    case "object":
      return isRecord(v);
    case "array":
      return Array.isArray(v);
    case "string[]":
      return Array.isArray(v) && v.every((x) => typeof x === "string");
    default:
      return typeof v === kind;
  }
}

function expected(kind: ArgKind): string {
  if (typeof kind !== "string") return kind.map((k) => `'${k}'`).join(" or ");
  if (kind === "string[]") return "an array of strings";
  return `${/^[aeiou]/.test(kind) ? "an" : "a"} ${kind}`;
}

const got = (v: unknown) => (v === null ? "null" : Array.isArray(v) ? "an array" : typeof v);

/**
 * Checks one argument of a public function: JavaScript callers (and casts) can pass anything, and
 * a wrong type must fail as INVALID_PARAMS naming the argument, not as a TypeError deeper down.
 */
export function checkArg(v: unknown, kind: ArgKind, what: string): void {
  if (!matches(v, kind)) throw invalidParams(`${what} must be ${expected(kind)} (got ${got(v)})`);
}

/** Checks an optional options object and the listed fields of it that are set. */
export function checkOptions(v: unknown, fields: Record<string, ArgKind>, what: string): void {
  if (v === undefined) return;
  if (!isRecord(v)) throw invalidParams(`${what}: options must be an object (got ${got(v)})`);
  for (const [name, kind] of Object.entries(fields)) {
    const x = v[name];
    if (x !== undefined) checkArg(x, kind, `${what}: option '${name}'`);
  }
}
