/**
 * Capacity of every SoA component array. Entity ids are reused by bitecs, so the highest live id
 * stays close to the number of live entities; 2^18 covers a scene of a hundred thousand instances
 * plus its nodes. Typed arrays are zero-filled lazily by the engine, so untouched pages cost nothing.
 */
export const MAX_ENTITIES = 1 << 18;

/** Entity id 0 means "none" (the engine reserves it at world creation). */
export const NO_ENTITY = 0;
