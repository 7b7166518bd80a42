/**
 * Types for the part of janode (Meetecho's Node adapter for Janus; plain JavaScript with JSDoc)
 * that src/server/meetings/sfu.ts uses.
 */

declare module 'janode' {
  import type { EventEmitter } from 'node:events';

  export interface JanodeJsep {
    type: 'offer' | 'answer';
    sdp: string;
  }

  export class JanodeHandle extends EventEmitter {
    readonly id: number;
    trickle(candidate: { candidate: string; sdpMid?: string | null; sdpMLineIndex?: number | null } | null): Promise<void>;
    trickleComplete(): Promise<void>;
    detach(): Promise<void>;
    hangup(): Promise<void>;
  }

  export class JanodeSession extends EventEmitter {
    readonly id: number;
    attach<H extends JanodeHandle>(plugin: { id: string; Handle: new (...args: never[]) => H }): Promise<H>;
    destroy(): Promise<void>;
  }

  export class JanodeConnection extends EventEmitter {
    create(keepAliveSeconds?: number): Promise<JanodeSession>;
    close(): Promise<void>;
  }

  export interface JanodeConfig {
    address: { url: string; apisecret?: string } | { url: string; apisecret?: string }[];
    retry_time_secs?: number;
    max_retries?: number;
    is_admin?: boolean;
  }

  const Janode: {
    connect(config: JanodeConfig): Promise<JanodeConnection>;
    Logger: { setLevel(level: 'debug' | 'verb' | 'info' | 'warn' | 'error' | 'none'): string };
    EVENT: {
      CONNECTION_CLOSED: 'connection_closed';
      CONNECTION_ERROR: 'connection_error';
      SESSION_DESTROYED: 'session_destroyed';
      HANDLE_DETACHED: 'handle_detached';
      HANDLE_ICE_FAILED: 'handle_ice_failed';
      HANDLE_HANGUP: 'handle_hangup';
      HANDLE_WEBRTCUP: 'handle_webrtcup';
      HANDLE_TRICKLE: 'handle_trickle';
    };
  };
  export default Janode;
}

declare module 'janode/plugins/videoroom' {
  import { JanodeHandle, type JanodeJsep } from 'janode';

  export interface VideoRoomPublisher {
    feed: number;
    display?: string;
  }

  /** A media line of a subscription (Janus multistream). */
  export interface VideoRoomStream {
    mid: string;
    type: 'audio' | 'video' | 'data';
    active?: boolean;
    feed_id?: number;
    feed_display?: string;
  }

  export class VideoRoomHandle extends JanodeHandle {
    feed: number | null;
    room: number | null;
    joinPublisher(params: { room: number; display?: string; feed?: number }): Promise<{ feed: number; room: number; publishers: VideoRoomPublisher[] }>;
    publish(params: { jsep: JanodeJsep; audio?: boolean; video?: boolean; display?: string }): Promise<{ jsep?: JanodeJsep; configured: string }>;
    leave(): Promise<unknown>;
    joinSubscriber(params: { room: number; streams: { feed: number; mid?: string }[]; autoupdate?: boolean }): Promise<{ jsep?: JanodeJsep; streams?: VideoRoomStream[] }>;
    update(params: { subscribe?: { feed: number }[]; unsubscribe?: { feed: number }[] }): Promise<{ jsep?: JanodeJsep; streams?: VideoRoomStream[] }>;
    start(params: { jsep: JanodeJsep }): Promise<unknown>;
    exists(params: { room: number }): Promise<{ exists: boolean }>;
    create(params: {
      room: number;
      description?: string;
      max_publishers?: number;
      permanent?: boolean;
      is_private?: boolean;
      audiocodec?: string;
      videocodec?: string;
      notify_joining?: boolean;
    }): Promise<unknown>;
    destroy(params: { room: number; permanent?: boolean }): Promise<unknown>;
    listParticipants(params: { room: number }): Promise<{ participants: { feed: number; display?: string; publisher: boolean }[] }>;
  }

  const VideoRoomPlugin: {
    id: string;
    Handle: typeof VideoRoomHandle;
    EVENT: {
      VIDEOROOM_PUB_LIST: 'videoroom_publisher_list';
      VIDEOROOM_UNPUBLISHED: 'videoroom_unpublished';
      VIDEOROOM_LEAVING: 'videoroom_leaving';
      VIDEOROOM_UPDATED: 'videoroom_updated';
      VIDEOROOM_DESTROYED: 'videoroom_destroyed';
      VIDEOROOM_KICKED: 'videoroom_kicked';
      VIDEOROOM_ERROR: 'videoroom_error';
    };
  };
  export default VideoRoomPlugin;
}
