/**
 * Lets the page's other tasks run (input, network replies, the loader worker's messages) before
 * the caller goes on: resolves in a task of its own. A posted message, not `setTimeout(0)`: the
 * browser clamps a chain of nested timers to 4 ms each after the fifth, and throttles timers in a
 * hidden tab to one a second, where a load that yields dozens of times would wait for nothing.
 */
export function yieldToMain(): Promise<void> {
  return new Promise((resolve) => {
    waiting.push(resolve);
    (channel ??= open()).postMessage(null);
  });
}

const waiting: (() => void)[] = [];
let channel: MessagePort | null = null;

function open(): MessagePort {
  const pair = new MessageChannel();
  pair.port1.onmessage = () => waiting.shift()?.();
  // Node (tests) keeps a process alive while a port listens; the browser ignores this.
  (pair.port1 as { unref?: () => void }).unref?.();
  return pair.port2;
}
