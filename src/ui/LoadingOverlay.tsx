import { useEffect, useLayoutEffect, useState } from 'react';
import { createPortal } from 'react-dom';
import { useSnapshot } from 'valtio';
import { LOADING_DETAIL_DELAY_MS, LOADING_TEXT, progressFraction, progressText, type EmbedState } from './embed-state';

/**
 * The loading overlay (viewer specification section 2): one opaque colour at first; after
 * LOADING_DETAIL_DELAY_MS the pulsing logo, the progress bar and the loading line. Only this
 * component reads the progress, so a progress step re-renders it alone, and only once shown.
 * `since` (performance.now()) is when the overlay first appeared, if before this component (the
 * plain one of src/ui/embed-boot.ts): the detail comes LOADING_DETAIL_DELAY_MS after that.
 * `host` is that plain overlay, if it is still on the screen: the detail goes into its element, so
 * that screen readers keep the one live region they have been told about (a new one put in its
 * place may not be announced), and its hidden first words are hidden once the detail says them.
 */
export function LoadingOverlay({ state, logoUrl, since, host }: { state: EmbedState; logoUrl: string; since?: number; host?: { element: HTMLElement; words: HTMLElement | null } }) {
  const [detail, setDetail] = useState(() => since !== undefined && performance.now() - since >= LOADING_DETAIL_DELAY_MS);
  useEffect(() => {
    // The logo is fetched now, so that it is there when it appears (one change on the screen, not two).
    const logo = new Image();
    logo.src = logoUrl;
    const wait = since === undefined ? LOADING_DETAIL_DELAY_MS : LOADING_DETAIL_DELAY_MS - (performance.now() - since);
    const timer = setTimeout(() => setDetail(true), Math.max(0, wait));
    return () => clearTimeout(timer);
  }, [logoUrl, since]);
  // In the plain overlay, the progress line says what its hidden words said: said once.
  const hostElement = host?.element;
  const hostWords = host?.words;
  useLayoutEffect(() => {
    if (hostWords) hostWords.hidden = detail;
  }, [hostWords, detail]);
  if (hostElement) return detail ? createPortal(<LoadingDetail state={state} logoUrl={logoUrl} />, hostElement) : null;
  return (
    <div className="overlay loading" role="status" aria-live="polite" data-testid="loading-overlay">
      {detail ? <LoadingDetail state={state} logoUrl={logoUrl} /> : <span className="visually-hidden">{LOADING_TEXT}</span>}
    </div>
  );
}

function LoadingDetail({ state, logoUrl }: { state: EmbedState; logoUrl: string }) {
  const { progress } = useSnapshot(state);
  return (
    <>
      <img className="logo pulse" src={logoUrl} alt="" />
      <div className="progress" aria-label="Loading progress">
        <div className="progress-bar" style={{ width: `${Math.round(progressFraction(progress) * 100)}%` }} />
      </div>
      <div className="progress-text">{progressText(progress)}</div>
    </>
  );
}
