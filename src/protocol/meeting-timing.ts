/**
 * The meeting's timing and limits (viewer specification section 9, editor specification section 9),
 * re-exported by ./meeting.ts; no schemas here, so the viewer's frame systems may import them
 * without the meeting protocol's schemas.
 */

/** On close the client reconnects after this. */
export const MEETING_RECONNECT_DELAY_MS = 2500;
/** After repeated failed attempts the delay grows (with jitter) up to this. */
export const MEETING_RECONNECT_MAX_DELAY_MS = 30_000;
/** After authentication the client sends STATE_REQUEST and PING each this often. */
export const MEETING_HEARTBEAT_INTERVAL_MS = 5000;
/** The server drops a client silent for this many heartbeat intervals and announces USER_LEFT. */
export const MEETING_SILENT_INTERVALS = 3;
/**
 * A socket that sends no AUTH_REQUEST within this is closed (4001). Only the client's silence is
 * counted: the wait stops when AUTH_REQUEST arrives, the server's own check of the token has a
 * bound of its own (the server's MEETING_AUTH_VERIFY_TIMEOUT_MS).
 */
export const MEETING_AUTH_TIMEOUT_MS = 5000;
/**
 * A socket refused for too many meeting connections (close 4029) is told to try again after this,
 * and the client waits at least this long before it does.
 */
export const MEETING_TOO_MANY_RETRY_MS = 30_000;
/** A frame larger than this is refused: the socket is closed with 1009. */
export const MEETING_MAX_FRAME_BYTES = 64 * 1024;
/** Messages a socket may send per second on average, and in a burst. */
export const MEETING_RATE_PER_S = 60;
export const MEETING_RATE_BURST = 120;
/** Bytes that may wait in a socket's send buffer; a client that falls further behind is closed. */
export const MEETING_MAX_BUFFERED_BYTES = 1024 * 1024;

/** The avatar update: at most every 50 ms, only when the camera moved more than 0.1, forced every 5000 ms. */
export const AVATAR_UPDATE_INTERVAL_MS = 50;
export const AVATAR_FORCED_UPDATE_MS = 5000;
export const AVATAR_POSITION_THRESHOLD = 0.1;
/** Avatar smoothing factors (per 1/60 s frame; applied frame-rate independently). */
export const AVATAR_POSITION_SMOOTHING = 0.025;
export const AVATAR_CURSOR_SMOOTHING = 0.1;
