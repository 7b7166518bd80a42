/**
 * Lets the page's other tasks run (input, network replies, the loader worker's messages) before
 * the caller goes on: resolves in a task of its own. A posted message, not `setTimeout(0)`: the
 * browser clamps a chain of nested timers to 4 ms each after the fifth, and throttles timers in a
 * hidden tab to one a second, where a load that yields dozens of times would wait for nothing.
 */
export function yieldToMain(): Promise<void> {
  return new Promise((resolve) => {
    waiting.push(resolve);
    post();
  });
}

const waiting: (() => void)[] = [];
let channel: MessagePort | null = null;
/** Node's port methods (the browser has neither): a listening port keeps a Node process alive. */
type NodePort = MessagePort & { ref?: () => void; unref?: () => void };
let receiver: NodePort | null = null;

function post(): void {
  if (!channel) {
    const pair = new MessageChannel();
    receiver = pair.port1 as NodePort;
    receiver.onmessage = () => {
      waiting.shift()?.();
      // Node (tests, benches): the port holds the process only while a yield waits on it, so an
      // idle port never keeps it alive and a pending one is never dropped at exit.
      if (waiting.length === 0) receiver?.unref?.();
    };
    channel = pair.port2;
  }
  receiver?.ref?.();
  channel.postMessage(null);
}
