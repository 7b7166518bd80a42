import type { Rfc } from '../protocol/meeting';

/** One meeting object's functions: (sender's client id, the call's arguments, args[0] being the sender). */
export type RfcHandlers = Record<string, (senderId: string, args: unknown[]) => void>;

export interface RfcObjects {
  /** Registers a handler for RFCs on `object`; the returned function unregisters it. */
  register(object: string, handlers: RfcHandlers): () => void;
  /** Applies one incoming call to its object's handler. */
  dispatch(rfc: Rfc): void;
}

/**
 * The meeting's objects and the calls others make on them. A call nobody here knows, one with no
 * sender, or one whose handler fails (bad arguments) is reported (console and notice), never thrown
 * into the frame.
 */
export function createRfcObjects(report: (message: string) => void): RfcObjects {
  const objects = new Map<string, RfcHandlers>();
  return {
    register(object, handlers) {
      if (objects.has(object)) throw new Error(`The meeting object '${object}' is already registered.`);
      objects.set(object, handlers);
      return () => objects.delete(object);
    },
    dispatch(rfc) {
      const target = objects.get(rfc.object);
      const handler = target && Object.hasOwn(target, rfc.function) ? target[rfc.function] : undefined;
      if (!handler) return report(`Another participant called '${rfc.function}' on the meeting's object '${rfc.object}', which this viewer does not have.`);
      const sender = rfc.args[0];
      if (typeof sender !== 'string') return report(`The call ${rfc.object}.${rfc.function} has no sender id.`);
      try {
        handler(sender, rfc.args);
      } catch (error) {
        report(error instanceof Error ? error.message : String(error));
      }
    },
  };
}
