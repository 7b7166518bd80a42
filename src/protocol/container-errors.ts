/** Every ContainerError code; 'worker-failed' comes from container-client when the worker dies. */
export const CONTAINER_ERROR_CODES = [
  'unknown-format',
  'unsupported-version',
  'truncated',
  'corrupt',
  'size-mismatch',
  'checksum-mismatch',
  'too-large',
  'bad-metadata',
  'worker-failed',
] as const;
export type ContainerErrorCode = (typeof CONTAINER_ERROR_CODES)[number];

/** A model file that cannot be decoded (or an asset that cannot be encoded). */
export class ContainerError extends Error {
  override readonly name = 'ContainerError';
  readonly code: ContainerErrorCode;

  constructor(code: ContainerErrorCode, message: string) {
    super(message);
    this.code = code;
  }
}
