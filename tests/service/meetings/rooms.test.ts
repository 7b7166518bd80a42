import { describe, expect, it } from 'vitest';
import type { MeetingClient } from '../../../src/protocol/meeting.ts';
import { callMode, hereEnvelope, localClients, newRoom, stateFrame, type Connection } from '../../../src/server/meetings/rooms.ts';
import type { SfuBridge } from '../../../src/server/meetings/sfu.ts';

const person = (id: string): MeetingClient => ({ _id: id, userId: `u-${id}`, profile: { firstName: id, lastName: 'T' } });
const conn = (client: MeetingClient | null) => ({ client }) as Connection;

/** A meeting with `local` clients here and `remote` ones on process p2. */
function meeting(local: string[], remote: string[]) {
  const room = newRoom('scene-1');
  for (const id of local) room.local.set(id, conn(person(id)));
  for (const id of remote) room.remote.set(id, { client: person(id), process: 'p2' });
  return room;
}

describe("a meeting's lists", () => {
  it('a new meeting has nobody, no processes and no call', () => {
    expect(newRoom('r')).toEqual({ id: 'r', local: new Map(), remote: new Map(), processes: new Map(), call: new Map() });
  });

  it('STATE lists the signed-in clients here, then those of other processes', () => {
    const room = meeting(['a', 'b'], ['c']);
    // A connection without a client yet is nobody's.
    room.local.set('x', conn(null));
    expect(localClients(room).map((c) => c._id)).toEqual(['a', 'b']);
    expect(JSON.parse(stateFrame(room))).toEqual({ type: 'STATE', clients: [person('a'), person('b'), person('c')] });
  });

  it("this process's announcement: its clients and which of them are in the call, not the other processes'", () => {
    const room = meeting(['a', 'b'], ['c']);
    room.call.set('b', 'sfu');
    room.call.set('c', 'sfu');
    expect(hereEnvelope('p1', room)).toEqual({ p: 'p1', k: 'here', clients: [person('a'), person('b')], call: [['b', 'sfu']] });
  });
});

describe("a call's mode", () => {
  const sfu = {} as SfuBridge;

  it('is the mode of those already in it; else the call server beyond meshMax people (when there is one), else a mesh', () => {
    expect(callMode(meeting(['a', 'b'], ['c']), { meshMax: 2 })).toBe('mesh');
    expect(callMode(meeting(['a', 'b'], ['c']), { meshMax: 2, sfu })).toBe('sfu');
    expect(callMode(meeting(['a', 'b'], ['c']), { meshMax: 3, sfu })).toBe('mesh');
    const running = meeting(['a', 'b'], ['c']);
    running.call.set('a', 'mesh');
    expect(callMode(running, { meshMax: 2, sfu })).toBe('mesh');
  });
});
