import { z } from 'zod';

/**
 * The meeting WebSocket (viewer specification sections 4, 7 and 9; editor specification sections
 * 4, 7 and 9; DESIGN.md 4.2 and 4.6): JSON text frames `{ type, ... }`, the constants of both
 * specifications, and the close codes the server uses. Browser and server import this one module.
 */

// The timing and limits (MEETING_*, AVATAR_*) are a module of their own: the viewer's avatar
// smoothing reads two of them without taking this module's schemas into the embed's first load.
export * from './meeting-timing';
import { MEETING_TOO_MANY_RETRY_MS } from './meeting-timing';

/** Close codes: the standard ones where they fit, ours in 4000-4999, each with a reason text. */
export const MEETING_CLOSE = {
  /** The server is shutting down; the client reconnects. */
  GOING_AWAY: 1001,
  /** A frame that is not a JSON text frame of this protocol before authentication. */
  PROTOCOL: 1002,
  /** Too many messages per second. */
  RATE_LIMIT: 1008,
  /** A frame over MEETING_MAX_FRAME_BYTES (sent by the ws library itself). */
  TOO_BIG: 1009,
  /** The client reads too slowly: its send buffer passed MEETING_MAX_BUFFERED_BYTES. */
  SLOW: 1013,
  /** No AUTH_REQUEST within MEETING_AUTH_TIMEOUT_MS. */
  AUTH_TIMEOUT: 4001,
  /** The token was refused (the reason says why). */
  AUTH_FAILED: 4003,
  /** No such meeting (scene), or the person may not join it. */
  FORBIDDEN: 4004,
  /** Silent for MEETING_SILENT_INTERVALS heartbeat intervals. */
  SILENT: 4008,
  /**
   * Too many meeting connections: the person already holds MEETING_SOCKETS_PER_USER sockets on this
   * server process, or too many sockets of one address are still waiting to sign in. The client
   * tries again after MEETING_TOO_MANY_RETRY_MS (4000 + HTTP's 429).
   */
  TOO_MANY: 4029,
} as const;

/**
 * The reason of a 1001 close when the server could not check the sign-in (the identity provider's
 * keys could not be fetched, or the check took longer than its bound): not the client's fault, and
 * the client reconnects.
 */
export const MEETING_SIGN_IN_UNCHECKED = 'The server could not check the sign-in right now; the viewer reconnects and tries again';

/** The reason of a 4029 close: a person holds `limit` meeting sockets already. */
export function tooManyMeetingSockets(limit: number): string {
  return `Too many meeting connections: at most ${limit} per person; close another tab or try again in ${Math.round(MEETING_TOO_MANY_RETRY_MS / 1000)} s`;
}

/** The reason of a 4029 close: `limit` sockets of one address are waiting to sign in already. */
export function tooManyPendingMeetingSockets(limit: number): string {
  return `Too many meeting connections waiting to sign in: at most ${limit} per address; try again in ${Math.round(MEETING_TOO_MANY_RETRY_MS / 1000)} s`;
}

/** Close codes after which reconnecting cannot help (the client stops and says why). */
export const MEETING_FINAL_CLOSE_CODES: readonly number[] = [MEETING_CLOSE.AUTH_FAILED, MEETING_CLOSE.FORBIDDEN, MEETING_CLOSE.TOO_BIG];

// ----- Payloads -----

/** A meeting client (viewer specification section 3): one connection of a person. */
export const MeetingClient = z.object({
  /** Unique per connection (a person in two tabs is two clients). */
  _id: z.string().min(1).max(100),
  /** The person (the token's subject); 'guest-...' for guests. */
  userId: z.string().max(200).optional(),
  profile: z.object({ firstName: z.string().max(100), lastName: z.string().max(100) }),
});
export type MeetingClient = z.infer<typeof MeetingClient>;

/** 'First Last', and ' (you)' for the current user (viewer specification section 3). */
export function displayName(client: MeetingClient, selfId?: string | null): string {
  const name = `${client.profile.firstName} ${client.profile.lastName}`.trim() || 'Anonymous';
  return client._id === selfId ? `${name} (you)` : name;
}

/** How a call carries media: a peer-to-peer mesh, or through the call server (Janus VideoRoom, an SFU). */
export const RTC_MODES = ['mesh', 'sfu'] as const;
export type RtcMode = (typeof RTC_MODES)[number];

/** `from` of the signals the meeting server itself sends (no client id has an '@'). */
export const RTC_SERVER_ID = '@server';

/** The client gives up waiting for the server's answer to 'join' (the mode) after this. */
export const CALL_JOIN_TIMEOUT_MS = 20_000;

/** Error texts of calls through the call server (shown to the person). */
export const CALL_SERVER_UNREACHABLE = 'The call server cannot be reached: try joining the call again later.';
export const CALL_SERVER_LOST = 'The connection to the call server was lost: join the call again.';
export const CALL_JOIN_NO_ANSWER = 'The meeting server did not answer the request to join the call: try again.';

const Sdp = z.string().min(1).max(60_000);
/** An ICE candidate as RTCIceCandidateInit carries it. */
const IceCandidate = z.object({
  candidate: z.string().max(2000),
  sdpMid: z.string().max(100).nullable().optional(),
  sdpMLineIndex: z.number().int().min(0).max(1000).nullable().optional(),
});

/**
 * WebRTC signaling (DESIGN.md 4.2). Mesh: offer, answer and ice addressed to one client; join and
 * leave announced to all. Through the call server (SFU), the 'sfu-' signals go between a client and
 * the meeting server (no `to`; `from` is RTC_SERVER_ID): the client publishes one feed (its offer,
 * the server's answer) and receives everyone else's on one subscription (the server's offers, the
 * client's answers), each offer listing which media line (mid) is whose.
 */
export const RtcSignal = z.discriminatedUnion('kind', [
  /** Joining the call; relayed to the others with the call's `mode` set by the server. */
  z.object({ kind: z.literal('join'), mode: z.enum(RTC_MODES).optional() }),
  z.object({ kind: z.literal('leave') }),
  z.object({ kind: z.literal('offer'), sdp: Sdp }),
  z.object({ kind: z.literal('answer'), sdp: Sdp }),
  z.object({ kind: z.literal('ice'), candidate: IceCandidate }),
  /** Server -> the client that joined: the call's mode. */
  z.object({ kind: z.literal('mode'), mode: z.enum(RTC_MODES) }),
  /** Client -> server: the offer of one's own feed; server -> client: the call server's answer. */
  z.object({ kind: z.literal('sfu-publish'), sdp: Sdp }),
  z.object({ kind: z.literal('sfu-published'), sdp: Sdp }),
  /** Server -> client: the subscription to the others' feeds, new or changed. */
  z.object({
    kind: z.literal('sfu-offer'),
    // Two media lines per person: the offer of a full meeting is longer than a client's frames may be.
    sdp: z.string().min(1).max(1_000_000),
    feeds: z.array(z.object({ mid: z.string().min(1).max(100), client: z.string().min(1).max(100) })).max(1024),
  }),
  /** Client -> server: the answer to the latest sfu-offer. */
  z.object({ kind: z.literal('sfu-answer'), sdp: Sdp }),
  /** ICE candidates of the publishing or the subscribing connection; null = no more. */
  z.object({ kind: z.literal('sfu-ice'), pc: z.enum(['publisher', 'subscriber']), candidate: IceCandidate.nullable() }),
  /** USER_JOINED_RTC from a person whose feed the call server now has. */
  z.object({ kind: z.literal('sfu-feed') }),
  /** Server -> client: the call through the call server failed or ended; the text says why. */
  z.object({ kind: z.literal('sfu-error'), message: z.string().max(1000) }),
]);
export type RtcSignal = z.infer<typeof RtcSignal>;
export type RtcSignalOf<K extends RtcSignal['kind']> = Extract<RtcSignal, { kind: K }>;

/** Signals a client may address to another client (the rest are for or from the server). */
export const RTC_PEER_SIGNALS: readonly RtcSignal['kind'][] = ['offer', 'answer', 'ice'];

/** RTC_REQUEST content: a signal to one client (`to`), or to the server and the call (no `to`). */
export const RtcRequestContent = z.object({ to: z.string().min(1).max(100).optional(), signal: RtcSignal });
export type RtcRequestContent = z.infer<typeof RtcRequestContent>;
/** RTC_RESPONSE / USER_JOINED_RTC content: the signal and who sent it (set by the server). */
export const RtcRelayContent = z.object({ from: z.string().min(1).max(100), signal: RtcSignal });
export type RtcRelayContent = z.infer<typeof RtcRelayContent>;

const Name = z.string().min(1).max(100).regex(/^[A-Za-z_$][\w$.-]*$/, 'must be an identifier');

/** A remote function call on a registered object (viewer specification section 7). */
export const Rfc = z.object({
  type: z.literal('RFC'),
  object: Name,
  function: Name,
  args: z.array(z.unknown()).max(32),
});
export type Rfc = z.infer<typeof Rfc>;

// ----- Client -> server -----

export const ClientMessage = z.discriminatedUnion('type', [
  z.object({ type: z.literal('AUTH_REQUEST'), token: z.string().min(1).max(16_000) }),
  z.object({ type: z.literal('STATE_REQUEST') }),
  z.object({ type: z.literal('PING') }),
  z.object({ type: z.literal('RTC_REQUEST'), content: RtcRequestContent }),
  Rfc,
]);
export type ClientMessage = z.infer<typeof ClientMessage>;

// ----- Server -> client -----

export const ServerMessage = z.discriminatedUnion('type', [
  z.object({ type: z.literal('AUTH_RESPONSE'), client: MeetingClient }),
  z.object({ type: z.literal('STATE'), clients: z.array(MeetingClient) }),
  z.object({ type: z.literal('USER_JOINED'), client: MeetingClient }),
  z.object({ type: z.literal('USER_LEFT'), client: MeetingClient }),
  Rfc,
  z.object({ type: z.literal('RTC_RESPONSE'), content: RtcRelayContent }),
  z.object({ type: z.literal('USER_JOINED_RTC'), content: RtcRelayContent }),
  /** A message the server refused without closing (malformed, unknown addressee): the reason. */
  z.object({ type: z.literal('ERROR'), error: z.string() }),
]);
export type ServerMessage = z.infer<typeof ServerMessage>;

/** The first issue of a zod error as one sentence. */
function describe(error: z.ZodError): string {
  const issue = error.issues[0];
  if (!issue) return 'invalid';
  const path = issue.path.length ? issue.path.join('.') : 'message';
  return `${path}: ${issue.message}`;
}

export type Parsed<T> = { ok: true; value: T } | { ok: false; error: string };

function parseFrame<T>(schema: z.ZodType<T>, text: string, who: string): Parsed<T> {
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (error) {
    return { ok: false, error: `${who} is not JSON: ${(error as Error).message}` };
  }
  const result = schema.safeParse(json);
  if (!result.success) {
    const type = typeof json === 'object' && json !== null && 'type' in json ? String((json as { type: unknown }).type).slice(0, 40) : undefined;
    return { ok: false, error: `${who}${type ? ` (${type})` : ''} is invalid: ${describe(result.error)}` };
  }
  return { ok: true, value: result.data };
}

/** A client's frame, checked (the server's side). */
export function parseClientMessage(text: string): Parsed<ClientMessage> {
  return parseFrame(ClientMessage, text, 'The message');
}

/** A server's frame, checked (the browser's side). */
export function parseServerMessage(text: string): Parsed<ServerMessage> {
  return parseFrame(ServerMessage, text, "The server's message");
}

/** The meeting of a scene: `{endpoint}/{sceneId}` (DESIGN.md 4.6), as a ws(s) URL against `base`. */
export function meetingUrl(endpoint: string, sceneId: string, base: string): string {
  const url = new URL(`${endpoint.replace(/\/+$/, '')}/${encodeURIComponent(sceneId)}`, base);
  if (url.protocol === 'http:') url.protocol = 'ws:';
  else if (url.protocol === 'https:') url.protocol = 'wss:';
  return url.toString();
}

// ----- Registered objects and functions of the RFCs -----

/** The avatars object: handleTransformUpdate(client id, camera position, camera target, cursor?). */
export const AVATARS_OBJECT = 'avatars';
/** The follow object: handleStartFollowRfc(client id, followed id) / handleStopFollowRfc(client id). */
export const FOLLOW_OBJECT = 'follow';
/** The followed person's view for followers: handleViewState(client id, view). */
export const VIEW_OBJECT = 'view';

export const Vec3 = z.tuple([z.number().finite(), z.number().finite(), z.number().finite()]);
export type Vec3 = z.infer<typeof Vec3>;

/** handleTransformUpdate's arguments after the client id. */
export const TransformUpdateArgs = z.tuple([z.string(), Vec3, Vec3]).rest(z.unknown());
/** An optional fourth argument: the pointer's point in the scene, or null when off the model. */
export const CursorArg = Vec3.nullable();

/** What a follower needs besides the camera: projection, zoom and the section planes. */
export const ViewState = z.object({
  projection: z.enum(['Perspective', 'Orthographic']),
  /** The orthographic camera's zoom (1 for perspective). */
  zoom: z.number().finite().positive(),
  fov: z.number().finite().positive().max(179),
  /** Section planes: kept side where normal . p + constant >= 0. */
  sections: z
    .array(z.object({ normal: Vec3, constant: z.number().finite() }))
    .max(64),
});
export type ViewState = z.infer<typeof ViewState>;
