import type { IncomingMessage } from 'node:http';
import type { Duplex } from 'node:stream';
import type { FastifyInstance } from 'fastify';
import { WebSocketServer } from 'ws';
import { z } from 'zod';
import { MEETING_CLOSE, MEETING_MAX_FRAME_BYTES, MEETING_SIGN_IN_UNCHECKED } from '../../protocol/meeting.ts';
import { canReadScene } from '../auth/permissions.ts';
import { TokenError, type TokenVerifier } from '../auth/tokens.ts';
import type { ServerConfig } from '../config.ts';
import { HttpError } from '../routes/http.ts';
import type { Store } from '../store.ts';
import { createLocalBus, createRedisBus, redactUrl, type MeetingBus } from './bus.ts';
import { signGuestToken, verifyGuestToken } from './guests.ts';
import { MeetingHub, type Authenticate, type HubLimits } from './hub.ts';
import type { SfuBridge } from './sfu.ts';

/**
 * The meeting server on the app's HTTP server (DESIGN.md 4.2, 4.6): WebSocket upgrades at
 * `{meetings endpoint}/{sceneId}` (bearer tokens) and `{public-meetings endpoint}/{sceneId}`
 * (bearer or guest tokens), the Origin checked before the upgrade; `POST
 * /v1/meetings/{sceneId}/guests {firstName, lastName}` gives a guest token for a public scene.
 * With REDIS_URL the processes of one deployment share their meetings through Redis; with JANUS_URL
 * calls of meetings larger than RTC_MESH_MAX go through Janus (sfu.ts). One person holds at most
 * MEETING_SOCKETS_PER_USER signed-in sockets per process (close 4029 past it), and one address at
 * most as many sockets that have not signed in yet.
 */

export interface MeetingsOptions {
  verifyToken: TokenVerifier;
  /** Overrides of the hub's limits (tests use short intervals). */
  limits?: Partial<HubLimits>;
  /** A bus to use instead of the configured one (tests). */
  bus?: MeetingBus;
  /** A call server bridge to use instead of the configured one (tests). */
  sfu?: SfuBridge;
  maxFrameBytes?: number;
}

/** The path part of an endpoint ('/meetings', or the path of an absolute URL). */
export function endpointPath(endpoint: string): string {
  if (endpoint === '' || endpoint.startsWith('/')) return endpoint.replace(/\/+$/, '');
  return new URL(endpoint).pathname.replace(/\/+$/, '');
}

/** The scene id of a meeting path, or undefined when the path is not one of `base`. */
export function meetingRoom(pathname: string, base: string): string | undefined {
  if (!pathname.startsWith(`${base}/`)) return undefined;
  const rest = pathname.slice(base.length + 1);
  if (rest === '' || rest.includes('/')) return undefined;
  let id: string;
  try {
    id = decodeURIComponent(rest);
  } catch {
    return undefined;
  }
  return /^[A-Za-z0-9_-]{1,100}$/.test(id) ? id : undefined;
}

/**
 * May a page of `origin` open a meeting socket? No Origin header (a program, not a browser page):
 * yes, the token decides. Otherwise the configured list (MEETING_ORIGINS; '*' = any), else this
 * server's own origin (the Host header, or PUBLIC_URL).
 */
export function originAllowed(origin: string | undefined, host: string | undefined, config: Pick<ServerConfig, 'publicUrl' | 'meetingOrigins'>): boolean {
  if (origin === undefined) return true;
  const allowed = config.meetingOrigins;
  if (allowed && allowed.length > 0) return allowed.includes('*') || allowed.includes(origin);
  if (config.publicUrl && origin === config.publicUrl) return true;
  try {
    return host !== undefined && new URL(origin).host === host;
  } catch {
    return false;
  }
}

function refuseUpgrade(socket: Duplex, status: number, message: string): void {
  const body = JSON.stringify({ error: message });
  socket.end(
    `HTTP/1.1 ${status} ${status === 403 ? 'Forbidden' : status === 404 ? 'Not Found' : 'Bad Request'}\r\n` +
      `Content-Type: application/json; charset=utf-8\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`,
  );
}

const GuestBody = z.object({
  firstName: z.string().trim().min(1, { error: 'firstName must not be empty' }).max(100),
  lastName: z.string().trim().max(100).default(''),
});

export async function attachMeetings(app: FastifyInstance, config: ServerConfig, store: Store, options: MeetingsOptions): Promise<MeetingHub> {
  const bus =
    options.bus ??
    (config.redisUrl
      ? await createRedisBus({ url: config.redisUrl, onError: (error) => app.log.error(`meetings: Redis ${redactUrl(config.redisUrl!)}: ${error.message}`) })
      : createLocalBus());

  const authenticate: Authenticate = async (token, room, endpoint) => {
    const scene = await store.getScene(room);
    if (!scene) return { ok: false, code: MEETING_CLOSE.FORBIDDEN, reason: `No meeting: there is no scene '${room}'` };
    let user: { id: string; firstName: string; lastName: string } | undefined;
    let tokenProblem: string | undefined;
    try {
      user = await options.verifyToken(token);
    } catch (error) {
      if (error instanceof TokenError && error.statusCode === 503) {
        // Not the client's fault: it reconnects (1001) and the check is tried again.
        app.log.warn(`meetings: a token for meeting ${room} could not be checked: ${error.message}`);
        return { ok: false, code: MEETING_CLOSE.GOING_AWAY, reason: MEETING_SIGN_IN_UNCHECKED };
      }
      tokenProblem = (error as Error).message;
    }
    if (!user && endpoint === 'public' && scene.public !== false) {
      try {
        const guest = await verifyGuestToken(config.dataDir, token, room);
        return { ok: true, userId: guest.userId, firstName: guest.firstName, lastName: guest.lastName };
      } catch (error) {
        tokenProblem = `${tokenProblem}; ${(error as Error).message}`;
      }
    }
    if (!user) return { ok: false, code: MEETING_CLOSE.AUTH_FAILED, reason: tokenProblem ?? 'Invalid token' };
    if (!canReadScene(user, scene)) return { ok: false, code: MEETING_CLOSE.FORBIDDEN, reason: `You may not join the meeting of scene '${room}': it is private` };
    return { ok: true, userId: user.id, firstName: user.firstName, lastName: user.lastName };
  };

  const log = (level: 'warn' | 'error', message: string) => app.log[level](message);
  // The Janus adapter (and its native dependency) loads only when a call server is configured.
  let sfu = options.sfu;
  if (!sfu && config.rtc.janusUrl) {
    const { JanusSfu } = await import('./sfu.ts');
    sfu = new JanusSfu({ url: config.rtc.janusUrl, apiSecret: config.rtc.janusApiSecret, log });
  }
  // MEETING_SOCKETS_PER_USER bounds a person's signed-in sockets and, as many again, an address's
  // sockets that have not signed in yet; both per process (each process counts its own sockets).
  const limits: Partial<HubLimits> = {
    socketsPerUser: config.limits.meetingSocketsPerUser,
    pendingSocketsPerAddress: config.limits.meetingSocketsPerUser,
    ...options.limits,
  };
  const hub = new MeetingHub(bus, authenticate, limits, log, { meshMax: config.rtc.meshMax, sfu });
  const wss = new WebSocketServer({ noServer: true, maxPayload: options.maxFrameBytes ?? MEETING_MAX_FRAME_BYTES, perMessageDeflate: false });
  const paths: [string, 'meetings' | 'public'][] = [
    [endpointPath(config.endpoints.meetings), 'meetings'],
    [endpointPath(config.endpoints.publicMeetings), 'public'],
  ];

  const onUpgrade = (request: IncomingMessage, socket: Duplex, head: Buffer) => {
    socket.on('error', () => socket.destroy());
    const pathname = (request.url ?? '/').split('?')[0];
    let match: { room: string; endpoint: 'meetings' | 'public' } | undefined;
    for (const [base, endpoint] of paths) {
      const room = meetingRoom(pathname, base);
      if (room !== undefined) {
        match = { room, endpoint };
        break;
      }
    }
    if (!match) return refuseUpgrade(socket, 404, `No WebSocket at ${pathname}: meetings are at ${paths[0][0]}/{sceneId}`);
    const origin = request.headers.origin;
    if (!originAllowed(origin, request.headers.host, config)) {
      return refuseUpgrade(socket, 403, `Origin ${origin} may not open meetings on this server (MEETING_ORIGINS)`);
    }
    wss.handleUpgrade(request, socket, head, (ws) => hub.accept(ws, match.room, match.endpoint, request.socket.remoteAddress));
  };
  app.server.on('upgrade', onUpgrade);

  app.post<{ Params: { sceneId: string } }>('/v1/meetings/:sceneId/guests', async (request) => {
    const scene = await store.getScene(request.params.sceneId);
    if (!scene) throw new HttpError(404, `No scene '${request.params.sceneId}'`);
    if (!canReadScene(null, scene)) throw new HttpError(403, `Scene '${scene._id}' is private: guests may not join its meeting`);
    const body = GuestBody.safeParse(request.body ?? {});
    if (!body.success) throw new HttpError(400, body.error.issues[0]?.message ?? 'the body must be { firstName, lastName }');
    const { token, guest, expiresIn } = await signGuestToken(config.dataDir, scene._id, body.data);
    return { token, expires_in: expiresIn, user: { id: guest.userId, firstName: guest.firstName, lastName: guest.lastName } };
  });

  app.addHook('preClose', async () => {
    app.server.off('upgrade', onUpgrade);
    await hub.close();
    wss.close();
  });
  return hub;
}
