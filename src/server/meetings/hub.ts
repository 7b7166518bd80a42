import { randomBytes } from 'node:crypto';
import type { WebSocket } from 'ws';
import {
  MEETING_CLOSE,
  MEETING_SIGN_IN_UNCHECKED,
  parseClientMessage,
  tooManyMeetingSockets,
  tooManyPendingMeetingSockets,
  RTC_PEER_SIGNALS,
  RTC_SERVER_ID,
  type ClientMessage,
  type MeetingClient,
  type RtcRequestContent,
  type RtcSignal,
} from '../../protocol/meeting.ts';
import { CONFIG_DEFAULTS } from '../config.ts';
import type { MeetingBus } from './bus.ts';
import { DEFAULT_HUB_LIMITS, type Authenticate, type HubLimits, type HubRtc, type HubStats } from './hub-options.ts';
import { callMode, hereEnvelope, newRoom, stateFrame, type Connection, type Envelope, type Room } from './rooms.ts';
import { reasonText, RefusalLog, release, seconds, SocketCorks } from './sockets.ts';

export {
  DEFAULT_HUB_LIMITS,
  MEETING_AUTH_VERIFY_TIMEOUT_MS,
  MEETING_PENDING_SOCKETS_PER_ADDRESS,
  type Authenticate,
  type HubLimits,
  type HubRtc,
  type HubStats,
} from './hub-options.ts';

/**
 * The meetings of one server process (DESIGN.md 4.2): sockets, their authentication, the rooms
 * (one per scene), relaying, the limits, and who is in each meeting's call and how (a mesh, or
 * through the call server: sfu.ts). Other processes are heard through the bus: each
 * process announces its own clients (join, leave, and every heartbeat interval the whole list),
 * so a meeting spans processes and a process that dies takes its clients out within
 * MEETING_SILENT_INTERVALS intervals.
 */

export class MeetingHub {
  readonly processId = randomBytes(6).toString('base64url');
  private readonly rooms = new Map<string, Room>();
  private readonly sockets = new Set<Connection>();
  /** Authenticated local clients by id (the call server's messages find them here). */
  private readonly clients = new Map<string, Connection>();
  private readonly rtc: HubRtc;
  private readonly limits: HubLimits;
  private readonly sweepTimer: NodeJS.Timeout;
  private readonly announceTimer: NodeJS.Timeout;
  private relayed = 0;
  private closing = false;
  /** Open sockets not signed in yet, per remote address. */
  private readonly pendingByAddress = new Map<string, number>();
  /** Signed-in sockets (admitted or being admitted), per person. */
  private readonly socketsByUser = new Map<string, number>();
  /** When a refusal for too many sockets was last logged, per address or person (a flood logs once a minute). */
  private readonly refusals = new RefusalLog();
  private readonly corks = new SocketCorks();

  constructor(
    private readonly bus: MeetingBus,
    private readonly authenticate: Authenticate,
    limits: Partial<HubLimits> = {},
    private readonly log: (level: 'warn' | 'error', message: string) => void = () => {},
    rtc: Partial<HubRtc> = {},
  ) {
    this.limits = { ...DEFAULT_HUB_LIMITS, ...limits };
    this.rtc = { meshMax: rtc.meshMax ?? CONFIG_DEFAULTS.RTC_MESH_MAX, sfu: rtc.sfu };
    this.rtc.sfu?.attach({
      send: (clientId, type, from, signal) => {
        const conn = this.clients.get(clientId);
        if (conn) this.send(conn, JSON.stringify({ type, content: { from, signal } }));
      },
      lost: (clientId) => {
        const conn = this.clients.get(clientId);
        const room = conn && this.rooms.get(conn.room);
        if (room && conn.client) this.leaveCall(room, conn.client, true);
      },
    });
    const sweepEvery = Math.max(50, Math.min(1000, this.limits.heartbeatMs / 2));
    this.sweepTimer = setInterval(() => this.sweep(), sweepEvery);
    this.sweepTimer.unref();
    this.announceTimer = setInterval(() => this.announce(), this.limits.heartbeatMs);
    this.announceTimer.unref();
  }

  stats(): HubStats {
    let clients = 0;
    for (const room of this.rooms.values()) clients += room.local.size;
    let pending = 0;
    for (const n of this.pendingByAddress.values()) pending += n;
    let counted = 0;
    for (const n of this.socketsByUser.values()) counted += n;
    return { rooms: this.rooms.size, sockets: this.sockets.size, clients, relayed: this.relayed, pending, counted };
  }

  /** A socket of `room` after the upgrade (path and Origin already checked), from `address`. */
  accept(ws: WebSocket, room: string, endpoint: 'meetings' | 'public', address = 'unknown'): void {
    if (this.closing) {
      ws.close(MEETING_CLOSE.GOING_AWAY, 'The server is shutting down');
      return;
    }
    const conn: Connection = {
      ws,
      room,
      endpoint,
      client: null,
      authenticating: false,
      lastSeen: Date.now(),
      tokens: this.limits.rateBurst,
      refilled: Date.now(),
      authTimer: null,
      closed: false,
      pending: null,
      counted: null,
    };
    this.sockets.add(conn);
    // Only the client's silence: onMessage stops this timer when AUTH_REQUEST arrives.
    conn.authTimer = setTimeout(() => {
      conn.authTimer = null;
      if (!conn.client && !conn.authenticating)
        this.closeConnection(conn, MEETING_CLOSE.AUTH_TIMEOUT, `No AUTH_REQUEST within ${seconds(this.limits.authTimeoutMs)}`);
    }, this.limits.authTimeoutMs);
    ws.on('message', (data, isBinary) => {
      if (isBinary) {
        this.closeConnection(conn, MEETING_CLOSE.PROTOCOL, 'Binary frames are not accepted: send JSON text frames');
        return;
      }
      this.onMessage(conn, data.toString());
    });
    ws.on('close', () => this.onClosed(conn));
    ws.on('error', (error) => {
      // ws closes the socket itself (1009 for an oversized frame, 1002 for a bad frame); note why.
      if ((error as { code?: string }).code !== 'WS_ERR_UNSUPPORTED_MESSAGE_LENGTH') this.log('warn', `meetings: socket error: ${error.message}`);
    });
    const pending = this.pendingByAddress.get(address) ?? 0;
    if (pending >= this.limits.pendingSocketsPerAddress) {
      this.refuse(conn, `address ${address}`, tooManyPendingMeetingSockets(this.limits.pendingSocketsPerAddress));
      return;
    }
    this.pendingByAddress.set(address, pending + 1);
    conn.pending = address;
  }

  /** Closes a socket 4029 (too many); logged once a minute per address or person, with the count. */
  private refuse(conn: Connection, who: string, reason: string): void {
    const more = this.refusals.due(who, Date.now());
    if (more !== null) this.log('warn', `meetings: refused a socket of meeting ${conn.room} from ${who} with ${MEETING_CLOSE.TOO_MANY}: ${reason}${more}`);
    this.closeConnection(conn, MEETING_CLOSE.TOO_MANY, reason, false, false);
  }

  private onMessage(conn: Connection, text: string): void {
    if (conn.closed) return;
    const now = Date.now();
    conn.lastSeen = now;
    // Token bucket: MEETING_RATE_PER_S on average, MEETING_RATE_BURST at once.
    conn.tokens = Math.min(this.limits.rateBurst, conn.tokens + ((now - conn.refilled) / 1000) * this.limits.ratePerS);
    conn.refilled = now;
    if (conn.tokens < 1) {
      this.closeConnection(
        conn,
        MEETING_CLOSE.RATE_LIMIT,
        `Too many messages: at most ${this.limits.ratePerS} per second (bursts of ${this.limits.rateBurst})`,
      );
      return;
    }
    conn.tokens -= 1;

    const parsed = parseClientMessage(text);
    if (!conn.client) {
      if (conn.authenticating) return; // the client sent more before the answer: ignored until then
      if (!parsed.ok) {
        this.closeConnection(conn, MEETING_CLOSE.PROTOCOL, parsed.error);
        return;
      }
      if (parsed.value.type !== 'AUTH_REQUEST') {
        this.closeConnection(conn, MEETING_CLOSE.PROTOCOL, `Send AUTH_REQUEST first (got ${parsed.value.type})`);
        return;
      }
      // The client has spoken: from here on the wait is the server's own (verifyTimeoutMs).
      if (conn.authTimer) clearTimeout(conn.authTimer);
      conn.authTimer = null;
      void this.onAuth(conn, parsed.value.token);
      return;
    }
    if (!parsed.ok) {
      this.send(conn, JSON.stringify({ type: 'ERROR', error: parsed.error }));
      return;
    }
    this.handle(conn, conn.client, parsed.value);
  }

  private async onAuth(conn: Connection, token: string): Promise<void> {
    conn.authenticating = true;
    let result: Awaited<ReturnType<Authenticate>>;
    let bound: NodeJS.Timeout | undefined;
    const timedOut = Symbol('timed out');
    try {
      // The server's own check has its own bound; a check that comes later finds the socket closed.
      const outcome = await Promise.race([
        this.authenticate(token, conn.room, conn.endpoint),
        new Promise<typeof timedOut>((resolve) => {
          bound = setTimeout(() => resolve(timedOut), this.limits.verifyTimeoutMs);
        }),
      ]);
      if (outcome === timedOut) {
        this.log(
          'warn',
          `meetings: checking a token for meeting ${conn.room} took over ${this.limits.verifyTimeoutMs} ms (is the identity provider's key server slow?): closed ${MEETING_CLOSE.GOING_AWAY}, the client reconnects`,
        );
        result = { ok: false, code: MEETING_CLOSE.GOING_AWAY, reason: MEETING_SIGN_IN_UNCHECKED };
      } else {
        result = outcome;
      }
    } catch (error) {
      this.log('error', `meetings: authentication failed: ${(error as Error).message}`);
      result = { ok: false, code: MEETING_CLOSE.GOING_AWAY, reason: MEETING_SIGN_IN_UNCHECKED };
    } finally {
      clearTimeout(bound);
    }
    conn.authenticating = false;
    if (conn.closed) return;
    if (!result.ok) {
      this.closeConnection(conn, result.code, result.reason);
      return;
    }
    // Signed in: counted as the person's (at most socketsPerUser at once), no longer as its address's.
    const held = this.socketsByUser.get(result.userId) ?? 0;
    if (held >= this.limits.socketsPerUser) {
      this.refuse(conn, `person ${result.userId}`, tooManyMeetingSockets(this.limits.socketsPerUser));
      return;
    }
    this.socketsByUser.set(result.userId, held + 1);
    conn.counted = result.userId;
    if (conn.pending !== null) release(this.pendingByAddress, conn.pending);
    conn.pending = null;
    const client: MeetingClient = {
      _id: randomBytes(9).toString('base64url'),
      userId: result.userId,
      profile: { firstName: result.firstName, lastName: result.lastName },
    };
    conn.client = client;
    await this.admit(conn, client);
  }

  /**
   * Puts an authenticated client into its meeting. The first of a meeting on this process waits
   * until the process hears the meeting's channel, and so does everyone admitted meanwhile: a
   * client is told AUTH_RESPONSE and STATE only when joins and leaves on other servers reach it.
   */
  private async admit(conn: Connection, client: MeetingClient): Promise<void> {
    const room = this.room(conn.room);
    room.subscribed ??= this.subscribeRoom(room);
    await room.subscribed;
    if (this.rooms.get(room.id) !== room) {
      // Everyone left while the channel was being joined and the meeting went: join it afresh.
      if (!conn.closed) await this.admit(conn, client);
      return;
    }
    if (conn.closed) {
      this.forgetIfEmpty(room);
      return;
    }
    room.local.set(client._id, conn);
    this.clients.set(client._id, conn);
    this.send(conn, JSON.stringify({ type: 'AUTH_RESPONSE', client }));
    this.send(conn, stateFrame(room));
    this.toLocals(room, JSON.stringify({ type: 'USER_JOINED', client }), client._id);
    this.publish(room.id, { p: this.processId, k: 'join', client });
  }

  private async subscribeRoom(room: Room): Promise<void> {
    try {
      await this.bus.subscribe(room.id, (message) => this.onBus(room.id, message));
    } catch (error) {
      this.log('error', `meetings: cannot hear other servers of meeting ${room.id}: ${(error as Error).message}`);
    }
    this.publish(room.id, { p: this.processId, k: 'hello' });
  }

  /** A meeting with nobody left on this process is forgotten, and its channel left. */
  private forgetIfEmpty(room: Room): void {
    if (room.local.size > 0 || this.rooms.get(room.id) !== room) return;
    this.rooms.delete(room.id);
    this.bus.unsubscribe(room.id).catch((error: Error) => this.log('warn', `meetings: unsubscribing from ${room.id} failed: ${error.message}`));
  }

  private handle(conn: Connection, client: MeetingClient, message: ClientMessage): void {
    const room = this.rooms.get(conn.room);
    if (!room) return;
    switch (message.type) {
      case 'AUTH_REQUEST':
        this.send(conn, JSON.stringify({ type: 'ERROR', error: 'Already authenticated' }));
        return;
      case 'STATE_REQUEST':
        this.send(conn, stateFrame(room));
        return;
      case 'PING':
        return; // lastSeen is all a ping is for
      case 'RFC': {
        // No impersonation: the first argument is always the sender's client id.
        const args = message.args.length > 0 ? message.args.slice() : [client._id];
        args[0] = client._id;
        const frame = JSON.stringify({ type: 'RFC', object: message.object, function: message.function, args });
        this.relayed++;
        this.toLocals(room, frame, client._id);
        this.publish(room.id, { p: this.processId, k: 'rfc', from: client._id, f: frame });
        return;
      }
      case 'RTC_REQUEST':
        this.relayRtc(conn, room, client, message.content);
        return;
    }
  }

  private relayRtc(conn: Connection, room: Room, client: MeetingClient, content: RtcRequestContent): void {
    const { to, signal } = content;
    if (to === undefined) {
      switch (signal.kind) {
        case 'join':
          this.joinCall(conn, room, client);
          return;
        case 'leave':
          this.leaveCall(room, client, true);
          return;
        case 'sfu-publish':
        case 'sfu-answer':
        case 'sfu-ice':
          if (room.call.get(client._id) !== 'sfu' || !this.rtc.sfu?.has(client._id)) {
            this.send(
              conn,
              JSON.stringify({ type: 'ERROR', error: `RTC_REQUEST: '${signal.kind}' is for a call through the call server, and you are not in one` }),
            );
            return;
          }
          this.rtc.sfu.signal(client._id, signal);
          return;
        default:
          this.send(conn, JSON.stringify({ type: 'ERROR', error: `RTC_REQUEST: a '${signal.kind}' signal needs content.to (a client id)` }));
          return;
      }
    }
    if (!RTC_PEER_SIGNALS.includes(signal.kind)) {
      this.send(conn, JSON.stringify({ type: 'ERROR', error: `RTC_REQUEST: a '${signal.kind}' signal goes to the server, not to a client (no content.to)` }));
      return;
    }
    const frame = JSON.stringify({ type: 'RTC_RESPONSE', content: { from: client._id, signal } });
    const local = room.local.get(to);
    if (local) {
      this.send(local, frame);
    } else if (room.remote.has(to)) {
      this.publish(room.id, { p: this.processId, k: 'rtc', to, f: frame });
    } else {
      this.send(conn, JSON.stringify({ type: 'ERROR', error: `RTC_REQUEST: no client '${to}' in this meeting` }));
    }
  }

  /** A client joins the call: told the mode (or why not), the others told of the join. */
  private joinCall(conn: Connection, room: Room, client: MeetingClient): void {
    if (room.call.has(client._id)) this.leaveCall(room, client, true);
    const mode = callMode(room, this.rtc);
    room.call.set(client._id, mode);
    const joined = () => {
      this.send(conn, JSON.stringify({ type: 'RTC_RESPONSE', content: { from: RTC_SERVER_ID, signal: { kind: 'mode', mode } satisfies RtcSignal } }));
      const frame = JSON.stringify({ type: 'USER_JOINED_RTC', content: { from: client._id, signal: { kind: 'join', mode } satisfies RtcSignal } });
      this.toLocals(room, frame, client._id);
      this.publish(room.id, { p: this.processId, k: 'all', from: client._id, f: frame, call: mode });
    };
    if (mode === 'mesh') return joined();
    const sfu = this.rtc.sfu!;
    sfu.join(room.id, client._id).then(
      () => {
        // Left the call or the meeting while Janus was being asked.
        if (conn.closed || room.call.get(client._id) !== 'sfu' || this.rooms.get(room.id) !== room) {
          void sfu.leave(client._id);
          return;
        }
        joined();
      },
      (error: Error) => {
        if (room.call.get(client._id) === 'sfu') room.call.delete(client._id);
        this.send(
          conn,
          JSON.stringify({ type: 'RTC_RESPONSE', content: { from: RTC_SERVER_ID, signal: { kind: 'sfu-error', message: error.message } satisfies RtcSignal } }),
        );
      },
    );
  }

  /** A client leaves the call (asked, or dropped); `announce` tells the others. */
  private leaveCall(room: Room, client: MeetingClient, announce: boolean): void {
    const mode = room.call.get(client._id);
    if (mode === undefined) return;
    room.call.delete(client._id);
    if (mode === 'sfu') void this.rtc.sfu?.leave(client._id);
    if (!announce) return;
    const frame = JSON.stringify({ type: 'RTC_RESPONSE', content: { from: client._id, signal: { kind: 'leave' } satisfies RtcSignal } });
    this.toLocals(room, frame, client._id);
    this.publish(room.id, { p: this.processId, k: 'all', from: client._id, f: frame, call: null });
  }

  private onBus(roomId: string, text: string): void {
    const room = this.rooms.get(roomId);
    if (!room) return;
    let message: Envelope;
    try {
      message = JSON.parse(text) as Envelope;
    } catch {
      this.log('warn', `meetings: a malformed message on the channel of ${roomId} was ignored`);
      return;
    }
    if (message.p === this.processId) return;
    room.processes.set(message.p, Date.now());
    switch (message.k) {
      case 'hello':
        this.publish(roomId, hereEnvelope(this.processId, room));
        return;
      case 'join':
        this.addRemote(room, message.client, message.p);
        return;
      case 'here': {
        // The whole list of that process (its messages arrive in order): add the new, drop the gone.
        const listed = new Set<string>();
        for (const client of message.clients) {
          listed.add(client._id);
          this.addRemote(room, client, message.p);
        }
        for (const [id, remote] of room.remote) if (remote.process === message.p && !listed.has(id)) this.removeRemote(room, id);
        // And who of them is in the call.
        const calling = new Map(message.call ?? []);
        for (const id of listed) {
          const mode = calling.get(id);
          if (mode) room.call.set(id, mode);
          else room.call.delete(id);
        }
        return;
      }
      case 'leave':
        this.removeRemote(room, message.client._id);
        return;
      case 'rfc':
        this.toLocals(room, message.f, message.from);
        return;
      case 'all':
        if (message.call === null) room.call.delete(message.from);
        else if (message.call !== undefined && room.remote.has(message.from)) room.call.set(message.from, message.call);
        this.toLocals(room, message.f, message.from);
        return;
      case 'rtc': {
        const local = room.local.get(message.to);
        if (local) this.send(local, message.f);
        return;
      }
    }
  }

  private addRemote(room: Room, client: MeetingClient, process: string): void {
    if (room.remote.has(client._id) || room.local.has(client._id)) return;
    room.remote.set(client._id, { client, process });
    this.toLocals(room, JSON.stringify({ type: 'USER_JOINED', client }));
  }

  private removeRemote(room: Room, id: string): void {
    const remote = room.remote.get(id);
    if (!remote) return;
    room.remote.delete(id);
    room.call.delete(id);
    this.toLocals(room, JSON.stringify({ type: 'USER_LEFT', client: remote.client }));
  }

  private room(id: string): Room {
    let room = this.rooms.get(id);
    if (!room) {
      room = newRoom(id);
      this.rooms.set(id, room);
    }
    return room;
  }

  /** Sends one frame to every local client of a room but `except`: encoded to UTF-8 once, not per socket. */
  private toLocals(room: Room, frame: string, except?: string): void {
    if (room.local.size === 0 || (room.local.size === 1 && except !== undefined && room.local.has(except))) return;
    const bytes = Buffer.from(frame);
    for (const [id, conn] of room.local) if (id !== except) this.send(conn, bytes);
  }

  private send(conn: Connection, frame: string | Buffer): void {
    if (conn.closed || conn.ws.readyState !== conn.ws.OPEN) return;
    if (conn.ws.bufferedAmount > this.limits.maxBufferedBytes) {
      this.closeConnection(
        conn,
        MEETING_CLOSE.SLOW,
        `The connection is too slow: more than ${this.limits.maxBufferedBytes} bytes were waiting to be sent`,
        true,
      );
      return;
    }
    this.corks.cork(conn);
    conn.ws.send(frame, { binary: false });
  }

  private publish(room: string, envelope: Envelope): void {
    if (this.bus.kind === 'local') return;
    this.bus.publish(room, JSON.stringify(envelope));
  }

  /** Closes with a code and reason; `hard` also cuts the TCP connection at once (a full buffer). */
  private closeConnection(conn: Connection, code: number, reason: string, hard = false, log = true): void {
    if (conn.closed) return;
    // Closes that say something about a client or the server (not a normal leave) are logged.
    if (log && code !== MEETING_CLOSE.GOING_AWAY)
      this.log('warn', `meetings: closed a socket of meeting ${conn.room}${conn.client ? ` (client ${conn.client._id})` : ''} with ${code}: ${reason}`);
    conn.ws.close(code, reasonText(reason));
    if (hard) conn.ws.terminate();
    else {
      // A client that never answers the close frame is cut off.
      const timer = setTimeout(() => conn.ws.terminate(), 2000);
      timer.unref();
    }
    this.onClosed(conn);
  }

  private onClosed(conn: Connection): void {
    if (conn.closed) return;
    conn.closed = true;
    if (conn.authTimer) clearTimeout(conn.authTimer);
    this.sockets.delete(conn);
    if (conn.pending !== null) release(this.pendingByAddress, conn.pending);
    if (conn.counted !== null) release(this.socketsByUser, conn.counted);
    conn.pending = conn.counted = null;
    const client = conn.client;
    if (!client) return;
    if (this.clients.get(client._id) === conn) this.clients.delete(client._id);
    const room = this.rooms.get(conn.room);
    if (!room || room.local.get(client._id) !== conn) return;
    this.leaveCall(room, client, false);
    room.local.delete(client._id);
    this.toLocals(room, JSON.stringify({ type: 'USER_LEFT', client }));
    this.publish(room.id, { p: this.processId, k: 'leave', client });
    // Not while the channel is still being joined: admit() forgets the meeting then if it is empty.
    void room.subscribed?.then(() => this.forgetIfEmpty(room));
  }

  /** Drops silent clients, and the clients of processes that stopped announcing theirs. */
  private sweep(): void {
    const now = Date.now();
    const silentAfter = this.limits.heartbeatMs * this.limits.silentIntervals;
    for (const conn of this.sockets) {
      if (conn.client && now - conn.lastSeen > silentAfter) {
        this.closeConnection(
          conn,
          MEETING_CLOSE.SILENT,
          `No message for ${Math.round(silentAfter / 1000)} s (${this.limits.silentIntervals} ping intervals)`,
          true,
        );
      }
    }
    for (const room of this.rooms.values()) {
      for (const [process, seen] of room.processes) {
        if (now - seen <= silentAfter) continue;
        room.processes.delete(process);
        for (const [id, remote] of room.remote) if (remote.process === process) this.removeRemote(room, id);
      }
    }
  }

  /** Every heartbeat interval: this process's clients of each meeting, for the other processes. */
  private announce(): void {
    if (this.bus.kind === 'local') return;
    for (const room of this.rooms.values()) this.publish(room.id, hereEnvelope(this.processId, room));
  }

  /** Closes every socket (1001, going away) and stops the timers. */
  async close(): Promise<void> {
    this.closing = true;
    clearInterval(this.sweepTimer);
    clearInterval(this.announceTimer);
    for (const conn of [...this.sockets]) this.closeConnection(conn, MEETING_CLOSE.GOING_AWAY, 'The server is shutting down', false);
    for (const conn of this.sockets) conn.ws.terminate();
    await Promise.all([this.bus.close(), this.rtc.sfu?.close()]);
  }
}
