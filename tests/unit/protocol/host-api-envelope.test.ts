import { describe, expect, it } from 'vitest';
import { ApiInitMessage, ApiRequestMessage, InstanceId, MAX_ID_LENGTH, RequestId } from '../../../src/protocol/host-api-envelope';

describe('host API envelope', () => {
  it('takes a request id that is a short string or a safe integer', () => {
    expect(RequestId.safeParse('r1').success).toBe(true);
    expect(RequestId.safeParse(42).success).toBe(true);
    expect(RequestId.safeParse('').success).toBe(false);
    expect(RequestId.safeParse('x'.repeat(MAX_ID_LENGTH + 1)).success).toBe(false);
    expect(RequestId.safeParse(1.5).success).toBe(false);
    expect(RequestId.safeParse(2 ** 53).success).toBe(false);
  });

  it('takes an instance id of 1-100 URL-safe characters', () => {
    expect(InstanceId.safeParse('viewer_1-a').success).toBe(true);
    expect(InstanceId.safeParse('a b').error?.issues[0]?.message).toBe('instanceId must be 1-100 characters of A-Z a-z 0-9 _ -');
    expect(InstanceId.safeParse('x'.repeat(101)).success).toBe(false);
  });

  it('reads api.init and api.request messages, and nothing else as them', () => {
    expect(ApiInitMessage.parse({ type: 'api.init' })).toEqual({ type: 'api.init' });
    expect(ApiRequestMessage.parse({ type: 'api.request', requestId: 7, func: 'getCamera', arguments: {}, instanceId: 'v' })).toEqual({
      type: 'api.request',
      requestId: 7,
      func: 'getCamera',
      arguments: {},
      instanceId: 'v',
    });
    expect(ApiRequestMessage.safeParse({ type: 'api.init', requestId: 7, func: 'getCamera' }).success).toBe(false);
    expect(ApiRequestMessage.safeParse({ type: 'api.request', requestId: 7, func: 'x'.repeat(MAX_ID_LENGTH + 1) }).success).toBe(false);
  });
});
