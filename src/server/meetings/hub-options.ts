import {
  MEETING_AUTH_TIMEOUT_MS,
  MEETING_HEARTBEAT_INTERVAL_MS,
  MEETING_MAX_BUFFERED_BYTES,
  MEETING_RATE_BURST,
  MEETING_RATE_PER_S,
  MEETING_SILENT_INTERVALS,
} from '../../protocol/meeting.ts';
import { CONFIG_DEFAULTS } from '../config.ts';
import type { SfuBridge } from './sfu.ts';

/** The meeting hub's (hub.ts) limits, its calls' settings, who may join, and what it counts. */

/**
 * The server's own check of a token (the scene, the token's signature against the identity
 * provider's keys, which may have to be fetched: 5 s at most, src/server/auth/tokens.ts) gets this
 * long; past it the socket is closed 1001 (MEETING_SIGN_IN_UNCHECKED) and the client reconnects.
 * It is not the client's time: MEETING_AUTH_TIMEOUT_MS stops when AUTH_REQUEST arrives.
 */
export const MEETING_AUTH_VERIFY_TIMEOUT_MS = 10_000;

/**
 * Sockets of one remote address that are open but not signed in yet (before AUTH_REQUEST, or while
 * the server checks it), at most: a flood of sockets that never sign in is bounded too. The same
 * number as the per-person limit by default (attachMeetings passes MEETING_SOCKETS_PER_USER). A
 * socket is in this state for a round trip and the token's check, so even many people behind one
 * proxy's address rarely hold more than a few at once; one refused tries again after
 * MEETING_TOO_MANY_RETRY_MS.
 */
export const MEETING_PENDING_SOCKETS_PER_ADDRESS = CONFIG_DEFAULTS.MEETING_SOCKETS_PER_USER;

export interface HubLimits {
  /** The client's silence before AUTH_REQUEST: past it 4001. */
  authTimeoutMs: number;
  /** The server's own check of the token (MEETING_AUTH_VERIFY_TIMEOUT_MS): past it 1001. */
  verifyTimeoutMs: number;
  /**
   * Signed-in sockets one person (a userId; a guest: the guest's id) may hold on this process at
   * once (MEETING_SOCKETS_PER_USER); one more is closed 4029. Per server process: with the Redis
   * bus each process counts its own sockets.
   */
  socketsPerUser: number;
  /** Open sockets of one remote address not signed in yet (MEETING_PENDING_SOCKETS_PER_ADDRESS); one more is closed 4029. */
  pendingSocketsPerAddress: number;
  /** The client's heartbeat interval; silent for `silentIntervals` of them -> dropped. */
  heartbeatMs: number;
  silentIntervals: number;
  ratePerS: number;
  rateBurst: number;
  maxBufferedBytes: number;
}

export const DEFAULT_HUB_LIMITS: HubLimits = {
  authTimeoutMs: MEETING_AUTH_TIMEOUT_MS,
  verifyTimeoutMs: MEETING_AUTH_VERIFY_TIMEOUT_MS,
  socketsPerUser: CONFIG_DEFAULTS.MEETING_SOCKETS_PER_USER,
  pendingSocketsPerAddress: MEETING_PENDING_SOCKETS_PER_ADDRESS,
  heartbeatMs: MEETING_HEARTBEAT_INTERVAL_MS,
  silentIntervals: MEETING_SILENT_INTERVALS,
  ratePerS: MEETING_RATE_PER_S,
  rateBurst: MEETING_RATE_BURST,
  maxBufferedBytes: MEETING_MAX_BUFFERED_BYTES,
};

/** Calls: mesh up to `meshMax` people in the meeting as the call starts, the call server beyond (if any). */
export interface HubRtc {
  meshMax: number;
  sfu?: SfuBridge;
}

/** Who may join: decided by the caller from the token and the scene (auth, permissions). */
export type Authenticate = (
  token: string,
  room: string,
  endpoint: 'meetings' | 'public',
) => Promise<{ ok: true; userId: string; firstName: string; lastName: string } | { ok: false; code: number; reason: string }>;

export interface HubStats {
  rooms: number;
  sockets: number;
  clients: number;
  relayed: number;
  /** Open sockets not signed in yet, and signed-in sockets counted per person (the limits' counts). */
  pending: number;
  counted: number;
}
