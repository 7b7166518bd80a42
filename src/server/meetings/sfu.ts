import { createHash } from 'node:crypto';
import Janode, { type JanodeConnection, type JanodeSession } from 'janode';
import VideoRoomPlugin, { type VideoRoomHandle, type VideoRoomPublisher, type VideoRoomStream } from 'janode/plugins/videoroom';
import { CALL_SERVER_LOST, CALL_SERVER_UNREACHABLE, RTC_SERVER_ID, type RtcSignal, type RtcSignalOf } from '../../protocol/meeting.ts';

/**
 * The call server of the meetings (README "Meetings"): Janus's VideoRoom as an SFU, driven by the
 * meeting server through janode over the Janus API (JANUS_URL); browsers never talk to the Janus
 * API, only send it media. One VideoRoom per meeting, its id derived from the scene id (so every
 * server process that uses the same Janus meets in the same room), created when the first person
 * joins and destroyed when the last one leaves. Each person in the call has two handles on this
 * process's Janus session: a publisher (its feed's display is the meeting client id, so the others
 * map feeds to people) and one subscriber with every other feed as a media line (Janus
 * multistream). Janus tells each publisher of the room about new feeds, wherever they joined from;
 * the subscriber follows (Janus renegotiates by itself when a feed goes).
 */

/** A Janus request that takes longer than this fails (Janus answers within milliseconds). */
export const SFU_REQUEST_TIMEOUT_MS = 10_000;
/** Opening the websocket to Janus. */
export const SFU_CONNECT_TIMEOUT_MS = 5000;
/** Publishers a meeting's room admits (a meeting holds 64 people). */
export const SFU_ROOM_PUBLISHERS = 64;

/** Janus VideoRoom error codes we act on. */
const NO_SUCH_ROOM = 426;
const ROOM_EXISTS = 427;

/** The VideoRoom of a meeting: a 48-bit number from the scene id (Janus's room ids are numbers by default). */
export function janusRoomId(meetingId: string): number {
  return createHash('sha256').update(`meeting:${meetingId}`).digest().readUIntBE(0, 6) || 1;
}

/** How the bridge talks to a client of this process: an RTC_RESPONSE or USER_JOINED_RTC. */
export type SfuSend = (clientId: string, type: 'RTC_RESPONSE' | 'USER_JOINED_RTC', from: string, signal: RtcSignal) => void;

export interface SfuHooks {
  send: SfuSend;
  /** The call through the call server ended for this client without its asking (Janus gone). */
  lost: (clientId: string) => void;
}

export interface SfuBridge {
  attach(hooks: SfuHooks): void;
  /** Puts a client into its meeting's room as a publisher; rejects with a text for the person. */
  join(meetingId: string, clientId: string): Promise<void>;
  /** A client's sfu-publish, sfu-answer or sfu-ice. */
  signal(clientId: string, signal: RtcSignalOf<'sfu-publish' | 'sfu-answer' | 'sfu-ice'>): void;
  /** Unpublishes and leaves; the room goes once nobody is in it. */
  leave(clientId: string): Promise<void>;
  has(clientId: string): boolean;
  close(): Promise<void>;
}

export interface JanusSfuOptions {
  /** ws(s):// URL of the Janus API (JANUS_URL). */
  url: string;
  /** Janus's api_secret (JANUS_API_SECRET). */
  apiSecret?: string;
  log?: (level: 'warn' | 'error', message: string) => void;
  requestTimeoutMs?: number;
}

interface Link {
  connection: JanodeConnection;
  session: JanodeSession;
  /** Room management (exists, create, list, destroy). */
  manager: VideoRoomHandle;
}

interface Peer {
  clientId: string;
  room: number;
  publisher: VideoRoomHandle;
  subscriber: VideoRoomHandle | null;
  /** Feeds asked for on the subscriber. */
  subscribed: Set<number>;
  /** Each handle's requests, one after the other (an answer before its candidates). */
  queues: { publisher: Promise<void>; subscriber: Promise<void> };
  gone: boolean;
}

class SfuError extends Error {
  constructor(
    message: string,
    readonly code?: number,
  ) {
    super(message);
  }
}

function codeOf(error: unknown): number | undefined {
  return (error as { _code?: number })._code;
}

export class JanusSfu implements SfuBridge {
  private link: Promise<Link> | null = null;
  private readonly peers = new Map<string, Peer>();
  /** Clients of this process in each room, joining ones included (the room stays while > 0). */
  private readonly inRoom = new Map<number, number>();
  private hooks: SfuHooks = { send: () => {}, lost: () => {} };
  private readonly log: NonNullable<JanusSfuOptions['log']>;
  private readonly timeoutMs: number;
  private closed = false;

  constructor(private readonly options: JanusSfuOptions) {
    this.log = options.log ?? ((level, message) => console[level](message));
    this.timeoutMs = options.requestTimeoutMs ?? SFU_REQUEST_TIMEOUT_MS;
    // Our own messages say what failed; janode's console lines would repeat them.
    Janode.Logger.setLevel('none');
  }

  attach(hooks: SfuHooks): void {
    this.hooks = hooks;
  }

  has(clientId: string): boolean {
    return this.peers.has(clientId);
  }

  /** A request to Janus, bounded in time. */
  private timed<T>(promise: Promise<T>, what: string, ms = this.timeoutMs): Promise<T> {
    let timer: NodeJS.Timeout;
    return Promise.race([
      promise,
      new Promise<never>((_, reject) => {
        timer = setTimeout(() => reject(new SfuError(`Janus did not answer ${what} within ${ms / 1000} s`)), ms);
      }),
    ]).finally(() => clearTimeout(timer));
  }

  /** The one connection and session of this process, opened on first use and after a loss. */
  private connect(): Promise<Link> {
    if (this.link) return this.link;
    const link = (async () => {
      let connection: JanodeConnection | undefined;
      try {
        connection = await this.timed(
          Janode.connect({ address: { url: this.options.url, apisecret: this.options.apiSecret }, max_retries: 0, retry_time_secs: 1 }),
          'the connection',
          SFU_CONNECT_TIMEOUT_MS,
        );
        const session = await this.timed(connection.create(), 'creating a session');
        const manager = await this.timed(session.attach(VideoRoomPlugin), 'attaching the VideoRoom plugin');
        const lost = (why: string) => this.linkLost(link, why);
        connection.once(Janode.EVENT.CONNECTION_ERROR, (error: Error) => lost(`the connection failed (${error.message})`));
        connection.once(Janode.EVENT.CONNECTION_CLOSED, () => lost('the connection closed'));
        session.once(Janode.EVENT.SESSION_DESTROYED, () => lost('its session ended'));
        return { connection, session, manager };
      } catch (error) {
        void connection?.close().catch(() => undefined);
        throw error;
      }
    })();
    this.link = link;
    link.catch((error: Error) => {
      if (this.link === link) this.link = null;
      this.log('error', `meetings: the call server (Janus at ${this.options.url}) cannot be reached: ${error.message}`);
    });
    return link;
  }

  /** Janus went away: every call through it on this process ends, and the people are told. */
  private linkLost(link: Promise<Link>, why: string): void {
    if (this.link !== link) return;
    this.link = null;
    if (!this.closed) this.log('error', `meetings: lost the call server (Janus at ${this.options.url}): ${why}`);
    for (const peer of [...this.peers.values()]) this.drop(peer, CALL_SERVER_LOST);
  }

  /** Ends a client's call through the call server without its asking: told, and out of the call. */
  private drop(peer: Peer, message: string): void {
    if (peer.gone) return;
    this.forget(peer);
    if (this.closed) return;
    this.hooks.send(peer.clientId, 'RTC_RESPONSE', RTC_SERVER_ID, { kind: 'sfu-error', message });
    this.hooks.lost(peer.clientId);
  }

  private forget(peer: Peer): void {
    peer.gone = true;
    if (this.peers.get(peer.clientId) === peer) this.peers.delete(peer.clientId);
  }

  private async ensureRoom(link: Link, room: number, meetingId: string): Promise<void> {
    const { exists } = await this.timed(link.manager.exists({ room }), 'whether the room exists');
    if (exists) return;
    try {
      await this.timed(
        link.manager.create({
          room,
          description: `meeting ${meetingId}`.slice(0, 100),
          max_publishers: SFU_ROOM_PUBLISHERS,
          permanent: false,
          is_private: true,
          audiocodec: 'opus',
          videocodec: 'vp8',
          notify_joining: false,
        }),
        'creating the room',
      );
    } catch (error) {
      // Another server process of the same meeting created it meanwhile.
      if (codeOf(error) !== ROOM_EXISTS) throw error;
    }
  }

  async join(meetingId: string, clientId: string): Promise<void> {
    if (this.peers.has(clientId)) await this.leave(clientId);
    const room = janusRoomId(meetingId);
    this.inRoom.set(room, (this.inRoom.get(room) ?? 0) + 1);
    let link: Link;
    let publisher: VideoRoomHandle | undefined;
    try {
      try {
        link = await this.connect();
      } catch {
        throw new SfuError(CALL_SERVER_UNREACHABLE);
      }
      publisher = await this.timed(link.session.attach(VideoRoomPlugin), 'attaching a publisher');
      let joined: Awaited<ReturnType<VideoRoomHandle['joinPublisher']>>;
      for (let attempt = 0; ; attempt++) {
        await this.ensureRoom(link, room, meetingId);
        try {
          joined = await this.timed(publisher.joinPublisher({ room, display: clientId }), 'joining the room');
          break;
        } catch (error) {
          // The room's last person on another process left just now and it was destroyed: again.
          if (codeOf(error) !== NO_SUCH_ROOM || attempt > 0) throw error;
        }
      }
      const peer: Peer = {
        clientId,
        room,
        publisher,
        subscriber: null,
        subscribed: new Set(),
        queues: { publisher: Promise.resolve(), subscriber: Promise.resolve() },
        gone: false,
      };
      this.peers.set(clientId, peer);
      this.listenPublisher(peer, link);
      this.addFeeds(peer, link, joined.publishers);
    } catch (error) {
      this.release(room);
      void publisher?.detach().catch(() => undefined);
      if (error instanceof SfuError && error.message === CALL_SERVER_UNREACHABLE) throw error;
      this.log('error', `meetings: joining the call server's room of meeting ${meetingId} failed: ${(error as Error).message}`);
      throw new SfuError(`The call server could not add you to the call (${(error as Error).message}).`);
    }
  }

  private listenPublisher(peer: Peer, link: Link): void {
    const { publisher } = peer;
    // New feeds in the room (published from any server process): subscribe, and say whose.
    publisher.on(VideoRoomPlugin.EVENT.VIDEOROOM_PUB_LIST, (data: { publishers: VideoRoomPublisher[] }) => {
      if (!peer.gone) this.addFeeds(peer, link, data.publishers);
    });
    // Janus's own subscriber updates drop the streams of a feed that went; only our list needs it.
    const gone = (data: { feed?: number }) => {
      if (typeof data.feed === 'number') peer.subscribed.delete(data.feed);
    };
    publisher.on(VideoRoomPlugin.EVENT.VIDEOROOM_UNPUBLISHED, gone);
    publisher.on(VideoRoomPlugin.EVENT.VIDEOROOM_LEAVING, gone);
    publisher.on(VideoRoomPlugin.EVENT.VIDEOROOM_DESTROYED, () => this.drop(peer, CALL_SERVER_LOST));
    publisher.on(VideoRoomPlugin.EVENT.VIDEOROOM_KICKED, () => this.drop(peer, CALL_SERVER_LOST));
    publisher.on(Janode.EVENT.HANDLE_ICE_FAILED, () => this.log('warn', `meetings: client ${peer.clientId} could not send media to the call server (ICE failed)`));
    publisher.on(Janode.EVENT.HANDLE_TRICKLE, (candidate: { candidate?: string; sdpMid?: string; sdpMLineIndex?: number; completed?: boolean }) =>
      this.relayTrickle(peer, 'publisher', candidate),
    );
  }

  /** Janus's own ICE candidates (only with full-trickle; by default they are in its SDP). */
  private relayTrickle(peer: Peer, pc: 'publisher' | 'subscriber', data: { candidate?: string; sdpMid?: string; sdpMLineIndex?: number; completed?: boolean }): void {
    if (peer.gone) return;
    const candidate = data.completed || data.candidate === undefined ? null : { candidate: data.candidate, sdpMid: data.sdpMid ?? null, sdpMLineIndex: data.sdpMLineIndex ?? null };
    this.hooks.send(peer.clientId, 'RTC_RESPONSE', RTC_SERVER_ID, { kind: 'sfu-ice', pc, candidate });
  }

  /** Subscribes `peer` to the feeds it lacks (not its own), and tells it whose they are. */
  private addFeeds(peer: Peer, link: Link, publishers: VideoRoomPublisher[]): void {
    const feeds: number[] = [];
    for (const { feed, display } of publishers) {
      if (feed === peer.publisher.feed || peer.subscribed.has(feed) || !display) continue;
      peer.subscribed.add(feed);
      feeds.push(feed);
      this.hooks.send(peer.clientId, 'USER_JOINED_RTC', display, { kind: 'sfu-feed' });
    }
    if (feeds.length === 0) return;
    this.enqueue(peer, 'subscriber', async () => {
      if (!peer.subscriber) {
        const subscriber = await this.timed(link.session.attach(VideoRoomPlugin), 'attaching a subscriber');
        if (peer.gone) {
          void subscriber.detach().catch(() => undefined);
          return;
        }
        peer.subscriber = subscriber;
        subscriber.on(VideoRoomPlugin.EVENT.VIDEOROOM_UPDATED, (data: { jsep?: { sdp: string }; streams?: VideoRoomStream[] }) => this.offer(peer, data));
        subscriber.on(Janode.EVENT.HANDLE_TRICKLE, (candidate: { candidate?: string; sdpMid?: string; sdpMLineIndex?: number; completed?: boolean }) =>
          this.relayTrickle(peer, 'subscriber', candidate),
        );
        const joined = await this.timed(subscriber.joinSubscriber({ room: peer.room, streams: feeds.map((feed) => ({ feed })), autoupdate: true }), 'subscribing');
        this.offer(peer, joined);
      } else {
        // While the client still answers an earlier offer Janus says 'updating' (no SDP) and sends the offer later.
        const updated = await this.timed(peer.subscriber.update({ subscribe: feeds.map((feed) => ({ feed })) }), 'updating the subscription');
        this.offer(peer, updated);
      }
    });
  }

  /** A subscription offer for the client, with each media line's person. */
  private offer(peer: Peer, data: { jsep?: { sdp: string }; streams?: VideoRoomStream[] }): void {
    if (peer.gone || !data.jsep) return;
    const feeds: { mid: string; client: string }[] = [];
    for (const stream of data.streams ?? []) {
      if (stream.active === false || stream.type === 'data' || !stream.feed_display) continue;
      feeds.push({ mid: stream.mid, client: stream.feed_display });
    }
    this.hooks.send(peer.clientId, 'RTC_RESPONSE', RTC_SERVER_ID, { kind: 'sfu-offer', sdp: data.jsep.sdp, feeds });
  }

  /** Runs `op` after the handle's earlier requests; a failure is told to the client and logged. */
  private enqueue(peer: Peer, queue: 'publisher' | 'subscriber', op: () => Promise<void>): void {
    peer.queues[queue] = peer.queues[queue]
      .then(() => (peer.gone ? undefined : op()))
      .catch((error: Error) => {
        if (peer.gone) return;
        this.log('warn', `meetings: the call server refused a request of client ${peer.clientId} (${queue}): ${error.message}`);
        this.hooks.send(peer.clientId, 'RTC_RESPONSE', RTC_SERVER_ID, { kind: 'sfu-error', message: `The call server could not set up your call (${error.message}).` });
        this.forget(peer);
        void this.teardown(peer);
        this.hooks.lost(peer.clientId);
      });
  }

  signal(clientId: string, signal: RtcSignalOf<'sfu-publish' | 'sfu-answer' | 'sfu-ice'>): void {
    const peer = this.peers.get(clientId);
    if (!peer) return;
    switch (signal.kind) {
      case 'sfu-publish':
        this.enqueue(peer, 'publisher', async () => {
          const published = await this.timed(peer.publisher.publish({ jsep: { type: 'offer', sdp: signal.sdp }, audio: true, video: true }), 'publishing');
          if (!published.jsep) throw new SfuError('Janus gave no answer to the offer');
          if (!peer.gone) this.hooks.send(clientId, 'RTC_RESPONSE', RTC_SERVER_ID, { kind: 'sfu-published', sdp: published.jsep.sdp });
        });
        return;
      case 'sfu-answer':
        this.enqueue(peer, 'subscriber', async () => {
          if (!peer.subscriber) throw new SfuError('an answer came before any offer');
          await this.timed(peer.subscriber.start({ jsep: { type: 'answer', sdp: signal.sdp } }), 'starting the subscription');
        });
        return;
      case 'sfu-ice':
        this.enqueue(peer, signal.pc, async () => {
          const handle = signal.pc === 'publisher' ? peer.publisher : peer.subscriber;
          if (!handle) return; // candidates of a connection Janus no longer has
          await this.timed(handle.trickle(signal.candidate), 'a candidate');
        });
        return;
    }
  }

  private release(room: number): void {
    const left = (this.inRoom.get(room) ?? 1) - 1;
    if (left > 0) this.inRoom.set(room, left);
    else this.inRoom.delete(room);
  }

  /** Detaches a peer's handles (the publisher leaves the room first). */
  private async teardown(peer: Peer): Promise<void> {
    const steps: Promise<unknown>[] = [];
    steps.push(
      this.timed(peer.publisher.leave(), 'leaving')
        .catch(() => undefined)
        .then(() => this.timed(peer.publisher.detach(), 'detaching the publisher')),
    );
    if (peer.subscriber) steps.push(this.timed(peer.subscriber.detach(), 'detaching the subscriber'));
    const results = await Promise.allSettled(steps);
    for (const result of results) {
      if (result.status === 'rejected' && this.link) this.log('warn', `meetings: leaving the call server for client ${peer.clientId}: ${(result.reason as Error).message}`);
    }
    this.release(peer.room);
    await this.destroyIfEmpty(peer.room);
  }

  async leave(clientId: string): Promise<void> {
    const peer = this.peers.get(clientId);
    if (!peer) return;
    this.forget(peer);
    await this.teardown(peer);
  }

  /** Destroys a room nobody is in any more (on any process: Janus's list says). */
  private async destroyIfEmpty(room: number): Promise<void> {
    if ((this.inRoom.get(room) ?? 0) > 0 || !this.link) return;
    try {
      const link = await this.link;
      const { participants } = await this.timed(link.manager.listParticipants({ room }), 'listing the room');
      if (participants.length > 0 || (this.inRoom.get(room) ?? 0) > 0) return;
      await this.timed(link.manager.destroy({ room, permanent: false }), 'destroying the room');
    } catch (error) {
      if (codeOf(error) !== NO_SUCH_ROOM) this.log('warn', `meetings: removing the call server's room ${room}: ${(error as Error).message}`);
    }
  }

  async close(): Promise<void> {
    const peers = [...this.peers.values()];
    for (const peer of peers) this.forget(peer);
    await Promise.allSettled(peers.map((peer) => this.teardown(peer)));
    this.closed = true;
    const link = this.link;
    this.link = null;
    if (link) {
      try {
        const { connection, session } = await link;
        await this.timed(session.destroy(), 'ending the session', 2000).catch(() => undefined);
        await connection.close().catch(() => undefined);
      } catch {
        /* never connected */
      }
    }
  }
}
