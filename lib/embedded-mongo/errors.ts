/**
 * Errors answered the way MongoDB answers them: a numeric `code`, its `codeName`, and any extra
 * fields (such as `keyPattern`/`keyValue` of a duplicate key) copied into the reply, so that the
 * driver and Mongoose raise the same error classes on this server as on a real one.
 */
const ErrorCodes = {
  InternalError: 1,
  BadValue: 2,
  FailedToParse: 9,
  Unauthorized: 13,
  ProtocolError: 17,
  AuthenticationFailed: 18,
  TypeMismatch: 14,
  InvalidLength: 16,
  IllegalOperation: 20,
  NamespaceNotFound: 26,
  IndexNotFound: 27,
  ConflictingUpdateOperators: 40,
  CursorNotFound: 43,
  NamespaceExists: 48,
  DollarPrefixedFieldName: 52,
  InvalidIdField: 53,
  NotSingleValueField: 54,
  CommandNotFound: 59,
  CommandNotSupportedOnView: 166,
  ImmutableField: 66,
  CannotCreateIndex: 67,
  InvalidOptions: 72,
  InvalidNamespace: 73,
  IndexOptionsConflict: 85,
  IndexKeySpecsConflict: 86,
  CannotIndexParallelArrays: 171,
  ConversionFailure: 241,
  Location16410: 16410,
  DuplicateKey: 11000,
  NotWritablePrimary: 10107,
  NotPrimaryNoSecondaryOk: 13435,
  BSONObjectTooLarge: 10334,
  KeyTooLong: 17280,
  NoSuchKey: 4,
  PathNotViable: 28,
  Location40352: 40352,
  Location40323: 40323,
  Location31254: 31254,
  Location31395: 31395,
  Location31275: 31275,
  Location28724: 28724,
  Location28667: 28667,
  Location51246: 51246,
  Location40324: 40324,
  InvalidPipelineOperator: 168,
  QueryFeatureNotAllowed: 224,
  DocumentValidationFailure: 121,
  Location17419: 17419,
  Location40415: 40415,
  Location16766: 16766,
  Location17262: 17262,
  Location17313: 17313,
  Location40218: 40218,
  Location51024: 51024,
  Location51091: 51091,
  Location51075: 51075,
  Location51108: 51108,
  Location17420: 17420,
  MechanismUnavailable: 334,
  WriteConflict: 112,
  NoSuchTransaction: 251,
  TransactionCommitted: 256,
  TransactionTooOld: 225,
  OperationNotSupportedInTransaction: 263,
  ConflictingOperationInProgress: 117,
  InvalidResumeToken: 260,
  ChangeStreamHistoryLost: 286,
  ChangeStreamFatalError: 280,
  MaxTimeMSExpired: 50,
  Location50768: 50768,
  Location40674: 40674,
  CommandNotSupported: 115,
  CursorInUse: 292,
  Location40602: 40602,
  Location4890500: 4890500,
  Location40414: 40414,
  Location4738901: 4738901,
} as const;

export type ErrorCodeName = keyof typeof ErrorCodes;

export class MongoCommandError extends Error {
  readonly code: number;
  readonly codeName: string;
  readonly extra: Record<string, unknown>;

  constructor(codeName: ErrorCodeName, message: string, extra: Record<string, unknown> = {}) {
    super(codeName === "BadValue" ? withoutScripting(message) : message);
    this.code = ErrorCodes[codeName];
    this.codeName = codeName.startsWith("Location") ? "" : codeName;
    this.extra = extra;
  }

  toReply(): Record<string, unknown> {
    return { ok: 0, errmsg: this.message, code: this.code, codeName: this.codeName, ...this.extra };
  }

  toWriteError(index: number): Record<string, unknown> {
    return { index, code: this.code, codeName: this.codeName, errmsg: this.message, ...this.extra };
  }
}

/** mingo's refusal of server-side JavaScript, which this database never runs. */
const SCRIPT_REFUSAL = /^(\$\w+)(?: operator)? requires 'scriptEnabled' option to be true\.?$/;

/** Says which operator runs server-side JavaScript and what to do instead, for mingo's refusal. */
function withoutScripting(message: string): string {
  const script = SCRIPT_REFUSAL.exec(message);
  return script
    ? `${script[1]} (server-side JavaScript) is not supported by the embedded database: set MONGODB_URI to use a MongoDB server`
    : message;
}

/** Any thrown value as MongoDB's reply; unknown errors become InternalError without a stack. */
export function errorReply(err: unknown): Record<string, unknown> {
  if (err instanceof MongoCommandError) return err.toReply();
  const message = err instanceof Error ? err.message : String(err);
  if (err instanceof TypeError || err instanceof ReferenceError) {
    return { ok: 0, errmsg: `internal error: ${message}`, code: ErrorCodes.InternalError, codeName: "InternalError" };
  }
  // mingo raises plain Errors for malformed operators: those are the client's fault.
  return { ok: 0, errmsg: withoutScripting(message), code: ErrorCodes.BadValue, codeName: "BadValue" };
}

/**
 * Errors that end the whole command rather than one statement of a batch: a write conflict in a
 * transaction (answered at the top level, with its label, as MongoDB does).
 */
export function endsCommand(err: unknown): boolean {
  return err instanceof MongoCommandError && Array.isArray(err.extra.errorLabels);
}
