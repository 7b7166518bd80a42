import { describe, expect, it } from 'vitest';
import {
  MEETING_AUTH_TIMEOUT_MS,
  MEETING_HEARTBEAT_INTERVAL_MS,
  MEETING_MAX_BUFFERED_BYTES,
  MEETING_RATE_BURST,
  MEETING_RATE_PER_S,
  MEETING_SILENT_INTERVALS,
} from '../../../src/protocol/meeting.ts';
import { CONFIG_DEFAULTS } from '../../../src/server/config.ts';
import { DEFAULT_HUB_LIMITS, MEETING_AUTH_VERIFY_TIMEOUT_MS, MEETING_PENDING_SOCKETS_PER_ADDRESS } from '../../../src/server/meetings/hub-options.ts';

describe("the meeting hub's default limits", () => {
  it("are the protocol's timings and rates and the configuration's socket limit", () => {
    expect(DEFAULT_HUB_LIMITS).toEqual({
      authTimeoutMs: MEETING_AUTH_TIMEOUT_MS,
      verifyTimeoutMs: MEETING_AUTH_VERIFY_TIMEOUT_MS,
      socketsPerUser: CONFIG_DEFAULTS.MEETING_SOCKETS_PER_USER,
      pendingSocketsPerAddress: CONFIG_DEFAULTS.MEETING_SOCKETS_PER_USER,
      heartbeatMs: MEETING_HEARTBEAT_INTERVAL_MS,
      silentIntervals: MEETING_SILENT_INTERVALS,
      ratePerS: MEETING_RATE_PER_S,
      rateBurst: MEETING_RATE_BURST,
      maxBufferedBytes: MEETING_MAX_BUFFERED_BYTES,
    });
    expect(MEETING_PENDING_SOCKETS_PER_ADDRESS).toBe(CONFIG_DEFAULTS.MEETING_SOCKETS_PER_USER);
  });

  it("gives the server's own token check longer than the client has to send it", () => {
    expect(MEETING_AUTH_VERIFY_TIMEOUT_MS).toBe(10_000);
    expect(MEETING_AUTH_VERIFY_TIMEOUT_MS).toBeGreaterThan(5000);
  });
});
