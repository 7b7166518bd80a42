import { resolveUiConfig, type SceneDoc } from '../protocol/scene';
import { meetingUrl } from '../protocol/meeting';
import type { ClientConfig } from '../protocol/config';
import { createMeeting, type Meeting } from '../meeting/meeting';
import { createCall, type Call } from '../meeting/call';
import type { Viewer } from '../viewer/viewer';
import type { EmbedState } from './embed-state';
import type { CommentsSession } from '../api/comments';
import { shareComments } from '../meeting/comments';
import { createServiceClient, path, ServiceError } from '../service/client';
import { z } from 'zod';

/** How long a join/leave notice stays in the participants panel. */
export const MEETING_NOTICE_MS = 6000;

let nextNotice = 1;

/**
 * Joins the scene's meeting and keeps the one UI store current from the viewer's 'meeting' events.
 * A signed-in visitor (a token generator set by the host, or the token the sign-in stored) joins on
 * the meetings endpoint; a guest with a guest token on the public-meetings endpoint. Returns the
 * meeting and the function that leaves it.
 */
export function joinMeeting(
  viewer: Viewer,
  state: EmbedState,
  config: ClientConfig,
  scene: SceneDoc,
  access: { kind: 'member'; token: () => Promise<string> } | { kind: 'guest'; token: string },
  /** The scene's comments (a chunk that may still be on its way): shared once they are there. */
  comments?: Promise<CommentsSession | null> | CommentsSession | null,
): { meeting: Meeting; call: Call; leave: () => void } {
  const endpoint = access.kind === 'member' ? config.endpoints.meetings : config.endpoints.publicMeetings;
  const url = meetingUrl(endpoint, scene._id, window.location.href);
  const ui = resolveUiConfig(scene.viewerConfig);
  const timers = new Set<number>();
  const off = viewer.events.on('meeting', (event) => {
    if (event.kind === 'state') {
      if (state.meeting) state.meeting.snapshot = event.snapshot;
      else state.meeting = { snapshot: event.snapshot, notices: [], call: null };
      return;
    }
    const text = event.kind === 'error' ? event.message : event.kind === 'joined' ? `${event.name} joined` : `${event.name} left`;
    if (!state.meeting) return;
    const id = nextNotice++;
    state.meeting.notices.push({ id, text });
    if (event.kind === 'error') console.error(`Meeting: ${text}`);
    const timer = window.setTimeout(() => {
      timers.delete(timer);
      const list = state.meeting?.notices;
      const i = list?.findIndex((n) => n.id === id) ?? -1;
      if (list && i >= 0) list.splice(i, 1);
    }, MEETING_NOTICE_MS);
    timers.add(timer);
  });
  const meeting = createMeeting(viewer, {
    url,
    token: access.kind === 'member' ? access.token : () => Promise.resolve(access.token),
    avatarsEnabled: ui.rtcAvatarsEnabled,
  });
  // Audio and video per uiConfig.rtcVideoEnabled, joined by the person's click; the meeting server
  // says whether the call is a mesh or goes through the call server.
  const call = createCall(meeting, {
    videoEnabled: ui.rtcVideoEnabled,
    iceServers: config.rtc.iceServers,
    participants: () => new Set(meeting.snapshot().participants.map((p) => p.id)),
  });
  state.meeting = { snapshot: meeting.snapshot(), notices: [], call: call.snapshot() };
  // New comments, replies and resolutions reach everyone in the meeting at once.
  let offComments: () => void = () => undefined;
  let left = false;
  void Promise.resolve(comments).then((session) => {
    if (session && !left) offComments = shareComments(meeting, session, (message) => console.error(message));
  });
  const offCall = call.onChange(() => {
    if (state.meeting) state.meeting.call = call.snapshot();
  });
  return {
    meeting,
    call,
    leave: () => {
      left = true;
      offComments();
      offCall();
      call.dispose();
      off();
      for (const timer of timers) window.clearTimeout(timer);
      meeting.dispose();
      state.meeting = null;
    },
  };
}

export { memberAccess } from './meeting-access';

/** POST /v1/meetings/{sceneId}/guests answers the guest's token (and who the guest is). */
const GuestToken = z.object({ token: z.string().min(1) });

/** A guest token for a public scene's meeting (POST /v1/meetings/{sceneId}/guests, on the account service). */
export async function guestToken(config: ClientConfig, sceneId: string, firstName: string, lastName: string, doFetch?: typeof fetch): Promise<string> {
  const service = createServiceClient({ baseUrl: config.endpoints.account || '', fetch: doFetch });
  try {
    const { token } = await service.request('POST', path`/v1/meetings/${sceneId}/guests`, {
      json: { firstName, lastName },
      schema: GuestToken,
      auth: 'none',
      what: 'The guest token',
    });
    return token;
  } catch (error) {
    if (error instanceof ServiceError && error.kind === 'status') throw new Error(error.reason ?? `Joining as a guest failed (${error.status}).`);
    if (error instanceof ServiceError && error.kind === 'invalid') throw new Error(`Joining as a guest failed (${error.status}).`);
    throw error;
  }
}
