/** Types for scripts/chromium.mjs. */
export declare const CANDIDATE_PATHS: readonly string[];
export declare const DEFAULT_FLAG_ARGS: string[];
export declare const CHROMIUM_ARGS: string[];
export declare const NO_MULTISAMPLING_ARGS: string[];
export declare function findChromium(options?: { install?: boolean; log?: (msg: string) => void }): string;
