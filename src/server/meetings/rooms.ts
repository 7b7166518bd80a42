import type { WebSocket } from 'ws';
import type { MeetingClient, RtcMode } from '../../protocol/meeting.ts';
import type { HubRtc } from './hub-options.ts';

/**
 * What the meeting hub (hub.ts) keeps of its sockets and meetings, what its processes say to each
 * other on a meeting's channel, and the frames and lists made from a meeting.
 */

export interface Connection {
  ws: WebSocket;
  room: string;
  endpoint: 'meetings' | 'public';
  client: MeetingClient | null;
  authenticating: boolean;
  lastSeen: number;
  tokens: number;
  refilled: number;
  authTimer: NodeJS.Timeout | null;
  closed: boolean;
  /** The remote address whose not-signed-in sockets count this one (until it signs in or closes). */
  pending: string | null;
  /** The person whose signed-in sockets count this one (from its sign-in until it closes). */
  counted: string | null;
  /** Its TCP socket is corked until the end of this turn of the event loop (SocketCorks). */
  corked?: boolean;
}

export interface RemoteClient {
  client: MeetingClient;
  process: string;
}

export interface Room {
  id: string;
  local: Map<string, Connection>;
  remote: Map<string, RemoteClient>;
  /** process id -> when it last announced its clients. */
  processes: Map<string, number>;
  /** Settles once this process hears the meeting's channel: nobody is admitted before it. */
  subscribed?: Promise<void>;
  /** Who is in the meeting's call (on any process), and how: all in one mode. */
  call: Map<string, RtcMode>;
}

/** What processes say to each other on a meeting's channel. */
export type Envelope =
  | { p: string; k: 'join' | 'leave'; client: MeetingClient }
  | { p: string; k: 'here'; clients: MeetingClient[]; call?: [string, RtcMode][] }
  | { p: string; k: 'hello' }
  | { p: string; k: 'rfc'; from: string; f: string }
  | { p: string; k: 'rtc'; to: string; f: string }
  /** A frame for everyone; `call` when it is a join (the mode) or leave (null) of the call. */
  | { p: string; k: 'all'; from: string; f: string; call?: RtcMode | null };

/** A meeting nobody of this process is in yet. */
export function newRoom(id: string): Room {
  return { id, local: new Map(), remote: new Map(), processes: new Map(), call: new Map() };
}

/** The signed-in clients of this process in a meeting. */
export function localClients(room: Room): MeetingClient[] {
  const clients: MeetingClient[] = [];
  for (const conn of room.local.values()) if (conn.client) clients.push(conn.client);
  return clients;
}

/** STATE: everyone in the meeting, on this process and the others. */
export function stateFrame(room: Room): string {
  const clients = localClients(room);
  for (const remote of room.remote.values()) clients.push(remote.client);
  return JSON.stringify({ type: 'STATE', clients });
}

/** This process's clients of a meeting, and which of them are in its call. */
export function hereEnvelope(processId: string, room: Room): Envelope {
  const call: [string, RtcMode][] = [];
  for (const id of room.local.keys()) {
    const mode = room.call.get(id);
    if (mode) call.push([id, mode]);
  }
  return { p: processId, k: 'here', clients: localClients(room), call };
}

/**
 * The mode of a call someone joins: the one of those already in it, else the call server when
 * there is one and the meeting has more than `meshMax` people (everyone in a meeting may join its
 * call), else a mesh. A call keeps its mode until it empties (no switch while people talk).
 */
export function callMode(room: Room, rtc: HubRtc): RtcMode {
  for (const mode of room.call.values()) return mode;
  return rtc.sfu && room.local.size + room.remote.size > rtc.meshMax ? 'sfu' : 'mesh';
}
