/** Types for scripts/build-state.mjs. */
export declare const BUILD_INPUTS: readonly string[];
export declare function staleReason(root: string): string | undefined;
