import { z } from 'zod';

/**
 * The endpoints the browser talks to (viewer specification section 7, "Configured endpoints").
 * The server hands them to the browser at GET /v1/config; nothing is baked into a build.
 * Relative URLs resolve against the page's origin.
 */
export const ClientConfig = z.object({
  endpoints: z.object({
    account: z.string(),
    meetings: z.string(),
    publicMeetings: z.string(),
    modelService: z.string(),
    modelDerivative: z.string(),
    modelDerivativeCdn: z.string(),
    assetCdn: z.string(),
  }),
  identityProvider: z.object({
    domain: z.string(),
    clientId: z.string(),
    callbackUrl: z.string(),
    audience: z.literal('parametricos'),
  }),
  /** Calls: the STUN/TURN servers for RTCPeerConnection (ICE_SERVERS). Whether a call is a mesh or
   *  goes through the call server the meeting server says when one joins it. */
  rtc: z
    .object({
      iceServers: z.array(z.object({ urls: z.union([z.string(), z.array(z.string())]), username: z.string().optional(), credential: z.string().optional() })),
    })
    .default({ iceServers: [] }),
});
export type ClientConfig = z.infer<typeof ClientConfig>;
