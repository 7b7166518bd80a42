import { query } from 'bitecs';
import { Scene } from 'three';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { Avatar } from '../../../components';
import { createViewerWorld, type ViewerWorld } from '../../../src/engine/world';
import type { MeetingEventData } from '../../../src/meeting/meeting';
import { createParticipants } from '../../../src/meeting/participants';
import { Emitter, type ViewerEventMap } from '../../../src/viewer/events';
import { BOB, CY, ME, client, installFakeDocument } from './meeting-fakes';

/**
 * The meeting's participants and their avatars (src/meeting/participants.ts): one avatar per other
 * person, 'joined'/'left' when announced, the list for the UI, avatars hidden while following or
 * for a follower, and nothing left after clear.
 */

describe('participants (src/meeting/participants.ts)', () => {
  let world: ViewerWorld;
  let events: MeetingEventData[];
  let following: string | null;
  let participants: ReturnType<typeof createParticipants>;
  const avatarEids = () => [...query(world, [Avatar])];
  const shown = () => avatarEids().map((eid) => Avatar.shown[eid]);

  const make = (avatarsEnabled = true) => {
    const emitter = new Emitter<ViewerEventMap>();
    emitter.on('meeting', (e) => void events.push(e));
    participants = createParticipants(world, emitter, { avatarsEnabled, selfId: () => 'me', following: () => following });
  };

  beforeEach(() => {
    installFakeDocument();
    world = createViewerWorld();
    world.render.scene = new Scene();
    events = [];
    following = null;
    make();
  });
  afterEach(() => {
    delete (globalThis as any).document;
  });

  it('gives everyone but oneself an avatar, and says who joined and left only when announced', () => {
    participants.add(ME, true);
    participants.add(BOB, false);
    participants.add(CY, true);
    participants.add(CY, true); // already here
    expect([...participants.clients.keys()]).toEqual(['me', 'bob', 'cy']);
    expect(avatarEids()).toHaveLength(2);
    expect(events).toEqual([{ kind: 'joined', name: 'Cy Test' }]);
    expect(participants.remove('bob', true)).toBe(true);
    expect(participants.remove('bob', true)).toBe(false);
    expect(participants.remove('me', true)).toBe(true); // oneself: no 'left'
    participants.remove('cy', false);
    expect(events).toEqual([
      { kind: 'joined', name: 'Cy Test' },
      { kind: 'left', name: 'Bob Test' },
    ]);
    expect(avatarEids()).toEqual([]);
    expect(world.render.scene!.children.filter((o) => o.name.startsWith('avatar:'))).toEqual([]);
  });

  it('lists oneself first, then by name, with colours and who follows whom', () => {
    participants.add(CY, false);
    participants.add(client('al', 'Al'), false);
    participants.add(ME, false);
    participants.followers.set('cy', 'al');
    following = 'al';
    const list = participants.list();
    expect(list.map((p) => [p.id, p.name, p.self, p.followed, p.following])).toEqual([
      ['me', 'Ada Test (you)', true, false, false],
      ['al', 'Al Test', false, true, false],
      ['cy', 'Cy Test', false, false, true],
    ]);
    expect(list[0]!.color).toBe('#888888'); // no avatar of one's own
    expect(list[1]!.color).toMatch(/^#[0-9a-f]{6}$/);
    expect(list[1]!.color).not.toBe(list[2]!.color);
  });

  it('moves an avatar shown, hidden while following, for a follower, or with avatars off', () => {
    participants.add(BOB, false);
    participants.add(CY, false);
    participants.moveAvatar('bob', [1, 2, 3], [0, 0, 0], null);
    participants.moveAvatar('cy', [1, 2, 3], [0, 0, 0], [0, 1, 0]);
    participants.moveAvatar('nobody', [1, 2, 3], [0, 0, 0], null); // not here: nothing
    expect(shown()).toEqual([1, 1]);
    const [, cy] = avatarEids();
    expect(Avatar.cursorShown[cy!]).toBe(1);
    participants.followers.set('bob', 'cy');
    participants.refreshAvatars();
    expect(shown()).toEqual([0, 1]);
    following = 'cy';
    participants.refreshAvatars();
    expect(shown()).toEqual([0, 0]);
    following = null;
    participants.followers.clear();
    participants.refreshAvatars();
    expect(shown()).toEqual([1, 1]);
    participants.clear();
    expect(avatarEids()).toEqual([]);
    expect(participants.clients.size).toBe(0);

    make(false);
    participants.add(BOB, false);
    participants.moveAvatar('bob', [1, 2, 3], [0, 0, 0], null);
    expect(shown()).toEqual([0]);
  });
});
