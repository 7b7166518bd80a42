/**
 * The editor specification's error texts (section 8) and the editor's constants that are not in
 * constants.ts, named once.
 */
export const ERR_MODEL_ID = 'modelId undefined.';
export const ERR_NODE_ID = 'nodeId undefined.';
export const ERR_MATERIAL_ID = 'materialId undefined.';
export const ERR_MISSING_MODEL_ID = 'Missing model ID in mutation.';
/** Raised (and shown to the person) when copying a model node or adding an object type not built yet. */
export const ERR_EDITOR_NOT_IMPLEMENTED = 'Not implemented';

/** Gizmo snapping steps while Shift is held during a drag. */
export const SNAP_TRANSLATE_M = 0.1;
export const SNAP_ROTATE_RAD = Math.PI / 12;
export const SNAP_SCALE = 0.1;

/** Retries of a failed save: first after 1 s, doubling, at most 30 s apart. */
export const SAVE_RETRY_BASE_MS = 1000;
export const SAVE_RETRY_MAX_MS = 30_000;
