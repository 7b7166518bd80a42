import type { MessageHandler, SceneMessage, ViewerWorld } from './world';

/**
 * Scene messages from outside the page's own input: the host page's window messages (the host API)
 * and a meeting's socket. A listener only queues (`enqueueMessage`); the message system applies the
 * queue at its slot of the frame, in arrival order, so a remote change never lands between two
 * systems of a frame. A handler that throws, or a message nobody handles, is answered with an Error
 * through `reply` (and reported), never thrown into the frame.
 */

/** How many messages may wait; beyond it the oldest is refused (a flood must not grow memory without bound). */
export const MAX_QUEUED_MESSAGES = 10_000;

export function onMessage(world: ViewerWorld, type: string, handler: MessageHandler): () => void {
  const handlers = world.messages.handlers;
  if (handlers.has(type)) throw new Error(`A handler for '${type}' messages is already registered.`);
  handlers.set(type, handler);
  return () => {
    if (handlers.get(type) === handler) handlers.delete(type);
  };
}

export function enqueueMessage(world: ViewerWorld, message: SceneMessage): void {
  const queue = world.messages.queue;
  if (queue.length >= MAX_QUEUED_MESSAGES) {
    const dropped = queue.shift()!;
    answer(dropped, undefined, new Error(`The viewer is busy: more than ${MAX_QUEUED_MESSAGES} messages were waiting, so this one was dropped.`));
  }
  queue.push(message);
}

/** Applies every queued message (the message system's work). Messages queued by a handler wait for the next frame. */
export function drainMessages(world: ViewerWorld): number {
  const { queue, handlers } = world.messages;
  const n = queue.length;
  if (n === 0) return 0;
  const batch = queue.splice(0, n);
  for (let i = 0; i < batch.length; i++) {
    const message = batch[i];
    const handler = handlers.get(message.type);
    if (!handler) {
      answer(message, undefined, new Error(`No handler for '${message.type}' messages from ${message.source}.`));
      continue;
    }
    let result: unknown;
    try {
      result = handler(world, message.payload, message);
    } catch (error) {
      answer(message, undefined, error instanceof Error ? error : new Error(String(error)));
      continue;
    }
    answer(message, result, null);
  }
  return n;
}

function answer(message: SceneMessage, result: unknown, error: Error | null): void {
  if (error && !message.reply) console.error(`A '${message.type}' message from ${message.source} failed:`, error);
  try {
    message.reply?.(result, error);
  } catch (replyError) {
    console.error(`Answering a '${message.type}' message from ${message.source} failed:`, replyError);
  }
}
