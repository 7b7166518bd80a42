import { describe, expect, it } from 'vitest';
import {
  CALL_SERVER_UNREACHABLE,
  RTC_PEER_SIGNALS,
  RTC_SERVER_ID,
  AVATAR_CURSOR_SMOOTHING,
  AVATAR_FORCED_UPDATE_MS,
  AVATAR_POSITION_SMOOTHING,
  AVATAR_POSITION_THRESHOLD,
  AVATAR_UPDATE_INTERVAL_MS,
  MEETING_HEARTBEAT_INTERVAL_MS,
  MEETING_RECONNECT_DELAY_MS,
  MEETING_SILENT_INTERVALS,
  TransformUpdateArgs,
  displayName,
  meetingUrl,
  parseClientMessage,
  parseServerMessage,
} from '../../../src/protocol/meeting';

describe('meeting protocol', () => {
  it('holds the specifications\' constants', () => {
    expect(MEETING_RECONNECT_DELAY_MS).toBe(2500);
    expect(MEETING_HEARTBEAT_INTERVAL_MS).toBe(5000);
    expect(MEETING_SILENT_INTERVALS).toBe(3);
    expect(AVATAR_UPDATE_INTERVAL_MS).toBe(50);
    expect(AVATAR_FORCED_UPDATE_MS).toBe(5000);
    expect(AVATAR_POSITION_THRESHOLD).toBe(0.1);
    expect(AVATAR_POSITION_SMOOTHING).toBe(0.025);
    expect(AVATAR_CURSOR_SMOOTHING).toBe(0.1);
  });

  it('parses the client messages of DESIGN.md 4.2', () => {
    expect(parseClientMessage('{"type":"AUTH_REQUEST","token":"t"}')).toEqual({ ok: true, value: { type: 'AUTH_REQUEST', token: 't' } });
    expect(parseClientMessage('{"type":"STATE_REQUEST"}').ok).toBe(true);
    expect(parseClientMessage('{"type":"PING"}').ok).toBe(true);
    expect(parseClientMessage(JSON.stringify({ type: 'RFC', object: 'avatars', function: 'handleTransformUpdate', args: ['a', [1, 2, 3], [0, 0, 0]] })).ok).toBe(true);
    expect(parseClientMessage(JSON.stringify({ type: 'RTC_REQUEST', content: { to: 'b', signal: { kind: 'offer', sdp: 'v=0' } } })).ok).toBe(true);
    expect(parseClientMessage(JSON.stringify({ type: 'RTC_REQUEST', content: { signal: { kind: 'join' } } })).ok).toBe(true);
  });

  it('parses the call server\'s signals, each only in its shape', () => {
    const server = (signal: unknown) => parseServerMessage(JSON.stringify({ type: 'RTC_RESPONSE', content: { from: RTC_SERVER_ID, signal } }));
    const client = (signal: unknown) => parseClientMessage(JSON.stringify({ type: 'RTC_REQUEST', content: { signal } }));
    expect(server({ kind: 'mode', mode: 'sfu' }).ok).toBe(true);
    expect(server({ kind: 'mode', mode: 'p2p' }).ok).toBe(false);
    expect(server({ kind: 'sfu-offer', sdp: 'v=0', feeds: [{ mid: '0', client: 'c2' }] }).ok).toBe(true);
    expect(server({ kind: 'sfu-offer', sdp: 'v=0' }).ok).toBe(false);
    // A subscription offer of a full meeting is longer than a client's SDPs may be.
    expect(server({ kind: 'sfu-offer', sdp: 'x'.repeat(200_000), feeds: [] }).ok).toBe(true);
    expect(client({ kind: 'sfu-answer', sdp: 'x'.repeat(200_000) }).ok).toBe(false);
    expect(server({ kind: 'sfu-error', message: CALL_SERVER_UNREACHABLE }).ok).toBe(true);
    expect(client({ kind: 'sfu-publish', sdp: 'v=0' }).ok).toBe(true);
    expect(client({ kind: 'sfu-ice', pc: 'subscriber', candidate: null }).ok).toBe(true);
    expect(client({ kind: 'sfu-ice', pc: 'publisher', candidate: { candidate: 'candidate:1', sdpMid: '0', sdpMLineIndex: 0 } }).ok).toBe(true);
    expect(client({ kind: 'sfu-ice', pc: 'both', candidate: null }).ok).toBe(false);
    expect(parseServerMessage(JSON.stringify({ type: 'USER_JOINED_RTC', content: { from: 'c2', signal: { kind: 'sfu-feed' } } })).ok).toBe(true);
    // The server's own signals come from RTC_SERVER_ID only; clients address mesh signals only.
    expect(RTC_SERVER_ID).toMatch(/^@/);
    expect([...RTC_PEER_SIGNALS].sort()).toEqual(['answer', 'ice', 'offer']);
  });

  it('refuses malformed messages with a reason naming the field', () => {
    const notJson = parseClientMessage('{nope');
    expect(notJson.ok).toBe(false);
    expect(!notJson.ok && notJson.error).toMatch(/^The message is not JSON/);
    const noToken = parseClientMessage('{"type":"AUTH_REQUEST"}');
    expect(!noToken.ok && noToken.error).toMatch(/\(AUTH_REQUEST\) is invalid: token/);
    const badName = parseClientMessage(JSON.stringify({ type: 'RFC', object: 'a b', function: 'f', args: [] }));
    expect(!badName.ok && badName.error).toMatch(/object: must be an identifier/);
    const unknown = parseClientMessage('{"type":"HELLO"}');
    expect(unknown.ok).toBe(false);
    const badSignal = parseClientMessage(JSON.stringify({ type: 'RTC_REQUEST', content: { to: 'b', signal: { kind: 'offer' } } }));
    expect(badSignal.ok).toBe(false);
  });

  it('parses the server messages', () => {
    const client = { _id: 'c1', profile: { firstName: 'Ada', lastName: 'Lovelace' } };
    for (const message of [
      { type: 'AUTH_RESPONSE', client },
      { type: 'STATE', clients: [client] },
      { type: 'USER_JOINED', client },
      { type: 'USER_LEFT', client },
      { type: 'RTC_RESPONSE', content: { from: 'c2', signal: { kind: 'answer', sdp: 'x' } } },
      { type: 'USER_JOINED_RTC', content: { from: 'c2', signal: { kind: 'join' } } },
      { type: 'ERROR', error: 'why' },
    ]) {
      expect(parseServerMessage(JSON.stringify(message))).toEqual({ ok: true, value: message });
    }
    expect(parseServerMessage('{"type":"STATE"}').ok).toBe(false);
  });

  it("shows a client as 'First Last', with ' (you)' for oneself", () => {
    const client = { _id: 'c1', profile: { firstName: 'Ada', lastName: 'Lovelace' } };
    expect(displayName(client)).toBe('Ada Lovelace');
    expect(displayName(client, 'c1')).toBe('Ada Lovelace (you)');
    expect(displayName(client, 'c2')).toBe('Ada Lovelace');
    expect(displayName({ _id: 'x', profile: { firstName: 'Guest', lastName: '' } })).toBe('Guest');
  });

  it('builds the meeting URL of a scene against the page', () => {
    expect(meetingUrl('/meetings', 'demo', 'https://v.example.com/embed/demo')).toBe('wss://v.example.com/meetings/demo');
    expect(meetingUrl('/meetings/', 'a b', 'http://localhost:8080/')).toBe('ws://localhost:8080/meetings/a%20b');
    expect(meetingUrl('wss://meet.example.com/ws', 'demo', 'https://v.example.com/')).toBe('wss://meet.example.com/ws/demo');
  });

  it('checks transform updates: id, position, target, then anything', () => {
    expect(TransformUpdateArgs.safeParse(['a', [1, 2, 3], [4, 5, 6]]).success).toBe(true);
    expect(TransformUpdateArgs.safeParse(['a', [1, 2, 3], [4, 5, 6], null]).success).toBe(true);
    expect(TransformUpdateArgs.safeParse(['a', [1, 2], [4, 5, 6]]).success).toBe(false);
    expect(TransformUpdateArgs.safeParse(['a', [1, 2, Infinity], [4, 5, 6]]).success).toBe(false);
  });
});
