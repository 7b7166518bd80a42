import { subscribe } from 'valtio/vanilla';
import { createEmbedController, prefetchCover, type EmbedController } from './embed-controller';
import { parseEmbedOptions, type EmbedOptions } from './embed-options';
import { mark } from '../viewer/documents';
import { createEmbedState, DEFAULT_LOGO, LOADING_DETAIL_DELAY_MS, LOADING_TEXT, PRODUCT_URL, type EmbedState } from './embed-state';

/**
 * The embedded viewer's start, without React: the screen's container and canvas are made here and
 * the viewer starts loading at once; the panels (React, src/ui/EmbedViewer.tsx) are a chunk of
 * their own that renders into `ui` when it is due (`panelsDue`). On a weak device React's
 * evaluation and first render took a few hundred milliseconds before the viewer could open its
 * context; now they come once the load has ended (bench/LOAD-PROFILE.md, "the viewer before the
 * panels").
 */
export interface EmbedBoot {
  sceneId: string;
  options: EmbedOptions;
  state: EmbedState;
  controller: EmbedController;
  /** `.embed`: the whole screen, the viewer's container. */
  container: HTMLDivElement;
  canvas: HTMLCanvasElement;
  /** The panels' React root, inside the container after the canvas (`display: contents`). */
  ui: HTMLDivElement;
  /**
   * The loading overlay (performance.now() when it appeared, so that the panels keep its timing):
   * a plain element, which the panels fill with the progress after its first second (one live
   * region throughout), taken away once the picture is out (a failure keeps it until the panels
   * show the failure overlay). `words`: its hidden first words, which the panels hide once the
   * progress line says them.
   */
  loading: { element: HTMLDivElement | null; since: number; words: HTMLElement | null };
  /** Removes the plain loading overlay (the panels, when they show something else in its place). */
  takeLoadingOverlay(): void;
  /**
   * Resolves when the panels should render: at once for the cover (autoPlay off); else once the
   * load has ended (viewerready sent, or the load failed), or when the loading overlay's detail is
   * due (LOADING_DETAIL_DELAY_MS after it appeared), whichever comes first. Their first render on
   * a weak device (React's code compiled, the panels laid out) took 150-200 ms of the main thread
   * that the first picture waited for (bench/LOAD-PROFILE.md, "the viewer before the panels").
   */
  panelsDue: Promise<void>;
}

/** Canvas label: what the view is and how to move it (the scene's name once known). */
export function canvasLabel(sceneName: string): string {
  return `3D view${sceneName ? ` of ${sceneName}` : ''}. Drag to orbit, scroll to zoom; arrow keys orbit, + and − zoom; press ? for every shortcut.`;
}

export function bootEmbed(root: HTMLElement, sceneId: string, search = window.location.search): EmbedBoot {
  const options = parseEmbedOptions(search);
  const state = createEmbedState();

  const container = document.createElement('div');
  container.className = 'embed';
  container.style.setProperty('--accent', options.uiColor);
  // The view's focus ring shows for keyboard focus only: Chromium matches :focus-visible on the
  // canvas after a mouse press too, so the last kind of input is kept on the container.
  container.dataset.focusSource = 'pointer';
  container.addEventListener(
    'keydown',
    (e) => {
      if (e.key === 'Tab') container.dataset.focusSource = 'keyboard';
    },
    true,
  );
  container.addEventListener('pointerdown', () => (container.dataset.focusSource = 'pointer'), true);

  const canvas = document.createElement('canvas');
  canvas.className = 'embed-canvas';
  canvas.dataset.testid = 'viewer-canvas';
  canvas.setAttribute('role', 'application');
  canvas.setAttribute('aria-roledescription', '3D view');
  canvas.setAttribute('aria-label', canvasLabel(''));
  // A press on the view takes the keyboard from whatever had it (camera-controls prevents the
  // press's default focus change): Enter then acts on the view, never on a panel's button.
  canvas.addEventListener('pointerdown', () => canvas.focus({ preventScroll: true, focusVisible: false } as FocusOptions));
  container.addEventListener('click', (e) => returnFocusToView(e, canvas));

  const ui = document.createElement('div');
  ui.className = 'embed-ui';
  container.append(canvas, ui);

  // The loading overlay's first look (one colour, the words for screen readers); once the panels
  // have arrived, LoadingOverlay (src/ui/LoadingOverlay.tsx) adds the progress to this element.
  const loading: EmbedBoot['loading'] = { element: null, since: 0, words: null };
  if (options.autoPlay) {
    const element = document.createElement('div');
    element.className = 'overlay loading';
    element.setAttribute('role', 'status');
    element.setAttribute('aria-live', 'polite');
    element.dataset.testid = 'loading-overlay';
    const words = document.createElement('span');
    words.className = 'visually-hidden';
    words.textContent = LOADING_TEXT;
    element.append(words);
    // Beside the panels' root, not in it (React empties its root when it first renders), and before
    // it, so that the notices of a load (in the root) are drawn over it.
    ui.before(element);
    loading.element = element;
    loading.words = words;
    loading.since = performance.now();
    mark('loading-overlay');
    // The logo the overlay shows after its first second, fetched now: there when it appears.
    new Image().src = options.uiLogoUrl ?? DEFAULT_LOGO;
  }
  // The watermark (static: no panel of its own), from the start as before the scene.
  if (options.uiWatermark) {
    const watermark = document.createElement('a');
    watermark.className = 'watermark';
    watermark.href = PRODUCT_URL;
    watermark.target = '_blank';
    watermark.rel = 'noopener noreferrer';
    watermark.dataset.testid = 'watermark';
    const logo = document.createElement('img');
    logo.src = DEFAULT_LOGO;
    logo.alt = '';
    // The name is a span of its own: on a phone beside the meeting panel only the logo shows (CSS).
    const name = document.createElement('span');
    name.className = 'watermark-name';
    name.textContent = 'Parametricos';
    watermark.append(logo, name);
    container.append(watermark);
  }
  root.replaceChildren(container);

  const takeLoadingOverlay = () => {
    loading.element?.remove();
    loading.element = null;
    loading.words = null;
  };
  let label = '';
  subscribe(state, () => {
    if (state.sceneName !== label) canvas.setAttribute('aria-label', canvasLabel((label = state.sceneName)));
    // A load that ends before the panels have arrived: the picture shows at once. A failure keeps
    // the overlay until the panels show the failure overlay (with its reason and Reload button).
    if (state.phase === 'ready') takeLoadingOverlay();
  });

  const controller = createEmbedController(sceneId, state, { canvas, container }, { quality: options.quality });
  if (options.autoPlay) controller.start();
  else void prefetchCover(sceneId, state, new AbortController().signal);
  const panelsDue = options.autoPlay
    ? Promise.race([
        controller.settled,
        new Promise<void>((resolve) => setTimeout(resolve, Math.max(0, LOADING_DETAIL_DELAY_MS - (performance.now() - loading.since)))),
      ])
    : Promise.resolve();
  return { sceneId, options, state, controller, container, canvas, ui, loading, takeLoadingOverlay, panelsDue };
}

/**
 * After a panel button was pressed with the pointer, the view takes the keyboard back: Enter or
 * Delete then act on the view (keep a plane, delete a measurement), never press the same button
 * again. A button pressed from the keyboard (detail 0) keeps the focus, so keyboard users stay put.
 */
function returnFocusToView(event: MouseEvent, canvas: HTMLCanvasElement): void {
  if (event.detail === 0) return;
  const target = event.target as Element | null;
  const button = target?.closest?.('button, [role="button"]');
  if (!button || !button.closest('.tools-panel, .view-controls, .animation-panel, .gizmo-slot, .tool-labels')) return;
  // Menus and popovers that open in place keep the focus for their items.
  if (button.hasAttribute('data-keep-focus')) return;
  // No focus ring for a pointer user (focusVisible is honoured where supported).
  canvas.focus({ preventScroll: true, focusVisible: false } as FocusOptions);
}
