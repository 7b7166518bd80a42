/**
 * Types for the parts of Khronos's glTF-Validator (npm `gltf-validator`, compiled from Dart, ships
 * no types) that the model service uses. Severity: 0 error, 1 warning, 2 information, 3 hint.
 */
declare module 'gltf-validator' {
  export interface ValidatorMessage {
    code: string;
    message: string;
    severity: 0 | 1 | 2 | 3;
    pointer?: string;
    offset?: number;
  }

  export interface ValidatorReport {
    uri?: string;
    mimeType?: string;
    validatorVersion: string;
    issues: {
      numErrors: number;
      numWarnings: number;
      numInfos: number;
      numHints: number;
      messages: ValidatorMessage[];
      truncated: boolean;
    };
    info?: Record<string, unknown>;
  }

  export interface ValidationOptions {
    uri?: string;
    format?: 'glb' | 'gltf';
    externalResourceFunction?: (uri: string) => Promise<Uint8Array>;
    writeTimestamp?: boolean;
    maxIssues?: number;
    ignoredIssues?: string[];
    onlyIssues?: string[];
    severityOverrides?: Record<string, 0 | 1 | 2 | 3>;
  }

  /** Rejects with a string when the options are invalid or the format cannot be detected. */
  export function validateBytes(data: Uint8Array, options?: ValidationOptions): Promise<ValidatorReport>;
  export function validateString(json: string, options?: ValidationOptions): Promise<ValidatorReport>;
  export function version(): string;
  export function supportedExtensions(): string[];

  const validator: {
    validateBytes: typeof validateBytes;
    validateString: typeof validateString;
    version: typeof version;
    supportedExtensions: typeof supportedExtensions;
  };
  export default validator;
}
