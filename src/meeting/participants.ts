import type { ViewerWorld } from '../engine/world';
import { displayName, type MeetingClient, type Vec3 } from '../protocol/meeting';
import type { Viewer } from '../viewer/viewer';
import { despawnAvatar, setAvatarTarget, showAvatar, spawnAvatar, type AvatarEntry } from './avatars';

export interface MeetingParticipant {
  id: string;
  /** 'First Last', with ' (you)' for oneself. */
  name: string;
  self: boolean;
  /** 'rgb(...)' of their avatar. */
  color: string;
  /** This participant is the one being followed. */
  followed: boolean;
  /** This participant follows someone (their avatar is hidden). */
  following: boolean;
}

export interface Participants {
  readonly clients: ReadonlyMap<string, MeetingClient>;
  /** Participants who follow someone (client id -> whom, '' when not said): their avatars are hidden for everyone. */
  readonly followers: Map<string, string>;
  /** Adds a participant (an avatar for everyone but oneself; `announce`: a 'joined' event). */
  add(client: MeetingClient, announce: boolean): void;
  /** Removes a participant and their avatar (`announce`: a 'left' event); false when they were not here. */
  remove(id: string, announce: boolean): boolean;
  /** Another person's camera pose and cursor: their avatar goes there. */
  moveAvatar(id: string, position: Vec3, target: Vec3, cursor: Vec3 | null): void;
  /** Shows or hides every avatar after follow mode changed. */
  refreshAvatars(): void;
  /** The participants for the UI: oneself first, then by name. */
  list(): MeetingParticipant[];
  /** Removes every avatar (the meeting is disposed). */
  clear(): void;
}

export interface ParticipantsOptions {
  avatarsEnabled: boolean;
  selfId(): string | null;
  /** Whom this viewer follows: while following, no avatar is shown. */
  following(): string | null;
}

/** The meeting's participants and their avatars (spawned in the frame, by the presence messages). */
export function createParticipants(world: ViewerWorld, events: Viewer['events'], options: ParticipantsOptions): Participants {
  const clients = new Map<string, MeetingClient>();
  const avatars = new Map<string, AvatarEntry>();
  const followers = new Map<string, string>();
  const avatarShown = (id: string) => options.avatarsEnabled && options.following() === null && !followers.has(id);

  return {
    clients,
    followers,
    add(client, announce) {
      if (clients.has(client._id)) return;
      clients.set(client._id, client);
      if (client._id !== options.selfId()) {
        avatars.set(client._id, spawnAvatar(world, client));
        if (announce) events.emit('meeting', { kind: 'joined', name: displayName(client) });
      }
    },
    remove(id, announce) {
      const client = clients.get(id);
      if (!client) return false;
      clients.delete(id);
      followers.delete(id);
      const avatar = avatars.get(id);
      if (avatar) {
        despawnAvatar(world, avatar);
        avatars.delete(id);
      }
      if (announce && id !== options.selfId()) events.emit('meeting', { kind: 'left', name: displayName(client) });
      return true;
    },
    moveAvatar(id, position, target, cursor) {
      const avatar = avatars.get(id);
      if (avatar) setAvatarTarget(world, avatar, position, target, cursor, avatarShown(id));
    },
    refreshAvatars() {
      for (const [id, avatar] of avatars) showAvatar(world, avatar, avatarShown(id));
    },
    list() {
      const self = options.selfId();
      const following = options.following();
      const list: MeetingParticipant[] = [];
      for (const client of clients.values()) {
        const avatar = avatars.get(client._id);
        list.push({
          id: client._id,
          name: displayName(client, self),
          self: client._id === self,
          color: avatar ? `#${avatar.material.color.getHexString()}` : '#888888',
          followed: following === client._id,
          following: followers.has(client._id),
        });
      }
      list.sort((a, b) => (a.self !== b.self ? (a.self ? -1 : 1) : a.name.localeCompare(b.name)));
      return list;
    },
    clear() {
      for (const avatar of avatars.values()) despawnAvatar(world, avatar);
      avatars.clear();
      clients.clear();
    },
  };
}
