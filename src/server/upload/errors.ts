import type { ValidationReport } from '../../protocol/upload.ts';

/**
 * The import pipeline's errors, in a module of their own: the server's routes and the upload pool
 * name them without loading the pipeline (gltf-transform, the validator, the encoders), which the
 * worker threads, the CLIs and the demo seeding load when they process a model.
 */

export type ImportErrorCode = 'UNKNOWN_FORMAT' | 'INVALID_GLTF' | 'MISSING_RESOURCE' | 'TOO_LARGE' | 'TOO_COMPLEX' | 'BAD_OPTION' | 'OPTIMIZE_FAILED';

/** A file that cannot be imported; the message says why in words a person can act on. */
export class ImportError extends Error {
  readonly code: ImportErrorCode;
  /** The glTF-Validator's report, when the file was refused for what the validator found. */
  readonly report?: ValidationReport;
  constructor(code: ImportErrorCode, message: string, report?: ValidationReport) {
    super(message);
    this.name = 'ImportError';
    this.code = code;
    if (report) this.report = report;
  }
}

export function tooLarge(fileName: string, maxBytes: number): ImportError {
  return new ImportError('TOO_LARGE', `${fileName}: The model is larger than the limit of ${maxBytes} bytes (MAX_ASSET_BYTES).`);
}

/** An ImportError as plain data: how it crosses the worker thread boundary (a thrown one would lose its code and report). */
export interface TaskError {
  code: ImportErrorCode;
  message: string;
  report?: ValidationReport;
}

/** The ImportError a task's answer stands for. */
export function taskError(error: TaskError): ImportError {
  return new ImportError(error.code, error.message, error.report);
}
