import { Component, type ReactNode } from 'react';

/**
 * Around a part of the page that is a chunk of its own (React.lazy): if its code cannot be loaded
 * (a network failure, a deploy that replaced the chunk), that part is left out and `onError` says
 * why; the rest of the page, the 3D view included, stays.
 */
export class ChunkBoundary extends Component<{ children: ReactNode; onError: (error: unknown) => void }, { failed: boolean }> {
  override state = { failed: false };

  static getDerivedStateFromError(): { failed: boolean } {
    return { failed: true };
  }

  override componentDidCatch(error: unknown): void {
    this.props.onError(error);
  }

  override render(): ReactNode {
    return this.state.failed ? null : this.props.children;
  }
}
