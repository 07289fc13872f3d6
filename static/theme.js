// The theme, before the page paints, so a dark page never flashes light:
// `?theme=light|dark|auto` (an embed's choice, for this load only), else the
// choice saved in this browser. Also marks an embedded page, handles the
// theme switch (#theme-choice) of the lab and the lesson alike, and projector
// mode (src/race/present.rs): plain script, so the race's WebAssembly stays small.
(function () {
  'use strict';
  var KEY = 'fencing-lab.theme';
  var params = new URLSearchParams(window.location.search);
  var root = document.documentElement;

  function apply(choice) {
    if (choice === 'light' || choice === 'dark') root.setAttribute('data-theme', choice);
    else root.removeAttribute('data-theme');
  }

  var choice = params.get('theme');
  if (!choice) {
    try {
      choice = window.localStorage.getItem(KEY);
    } catch (error) {
      choice = null; // storage can be forbidden inside an iframe
    }
  }
  apply(choice);
  if (params.has('embed')) root.classList.add('embedded');
  // The guided tour (src/race/guide.rs), once skipped or finished, never greets
  // this browser again: hidden before the first paint.
  try {
    if (window.localStorage.getItem('fencing-lab.guide') === 'done') root.setAttribute('data-guide', 'done');
  } catch (error) {
    // storage forbidden: the tour shows, and Skip hides it for this page
  }

  document.addEventListener('change', function (event) {
    if (!event.target || event.target.id !== 'theme-choice') return;
    apply(event.target.value);
    try {
      window.localStorage.setItem(KEY, event.target.value);
    } catch (error) {
      // the choice lasts this page only
    }
  });

  // Projector mode: a [data-present] button or the P key switches it, Esc
  // (or leaving full screen) ends it. Full screen is asked for where the
  // browser allows it; where it refuses (an iframe), the page's own
  // full-window layout (html.presenting) is the whole of it.
  var PRESENTING = 'presenting';
  function present(on) {
    if (root.classList.contains(PRESENTING) === on) return;
    root.classList.toggle(PRESENTING, on);
    var buttons = document.querySelectorAll('[data-present]');
    for (var i = 0; i < buttons.length; i += 1) buttons[i].setAttribute('aria-pressed', String(on));
    var ask = null;
    if (on && document.fullscreenEnabled && !document.fullscreenElement) ask = root.requestFullscreen();
    if (!on && document.fullscreenElement) ask = document.exitFullscreen();
    if (ask && ask.catch) ask.catch(function () {});
    // The whole run's picture scrolls inside its box while presenting: a
    // keyboard can reach it (arrow keys scroll it) and a screen reader names it.
    var boxes = document.querySelectorAll('#race .picture, .panes .pane-overview, #race .race-grid > .race-side');
    for (var j = 0; j < boxes.length; j += 1) {
      if (on) {
        boxes[j].setAttribute('tabindex', '0');
        boxes[j].setAttribute('role', 'region');
        // Side by side's two get names of their own (landmarks a screen reader tells apart).
        var which = boxes[j].classList.contains('race-side') ? 'The counters and the store'
          : (boxes[j].classList.contains('pane-right') ? 'The right-hand run' : boxes[j].classList.contains('pane-left') ? 'The left-hand run' : 'The whole run') + ', step by step';
        boxes[j].setAttribute('aria-label', which + ', scrollable');
      } else {
        boxes[j].removeAttribute('tabindex');
        boxes[j].removeAttribute('role');
        boxes[j].removeAttribute('aria-label');
      }
    }
    window.requestAnimationFrame(function () {
      window.scrollTo(0, 0);
      toCursors();
    });
  }
  // The layout changed size: each diagram and overview looks for its
  // cursor again (src/shell/browser.rs, LAYOUT_EVENT).
  function toCursors() {
    window.dispatchEvent(new Event('fencing-lab-layout'));
  }
  // While presenting, one picture at a time: the whole run (the overview)
  // or, with D or the button, the detailed diagram.
  var DETAIL = 'present-detail';
  function detail(on) {
    root.classList.toggle(DETAIL, on);
    // The message-level diagram lives in each run's details: open while shown.
    var folds = document.querySelectorAll('details.race-details, details.pane-details');
    for (var k = 0; k < folds.length; k += 1) folds[k].open = on;
    var buttons = document.querySelectorAll('[data-present-view]');
    for (var i = 0; i < buttons.length; i += 1) buttons[i].setAttribute('aria-pressed', String(on));
    window.requestAnimationFrame(toCursors);
  }
  function typing(target) {
    if (!target || !target.closest) return false;
    return !!target.closest('input:not([type=checkbox]):not([type=radio]), select, textarea, [contenteditable]');
  }
  document.addEventListener('click', function (event) {
    var target = event.target;
    if (!target || !target.closest) return;
    if (target.closest('[data-present]')) present(!root.classList.contains(PRESENTING));
    if (target.closest('[data-present-view]')) detail(!root.classList.contains(DETAIL));
    // The race's "Print handout": print.css (media=print, so fetched late)
    // lays out one page per run; print once it is there.
    if (target.closest('[data-print]')) {
      var sheet = document.querySelector('link[rel=stylesheet][media=print]');
      if (sheet && !sheet.sheet) sheet.addEventListener('load', function () { window.print(); }, { once: true });
      else window.print();
    }
  });
  document.addEventListener('keydown', function (event) {
    if (event.altKey || event.ctrlKey || event.metaKey || typing(event.target)) return;
    var on = root.classList.contains(PRESENTING);
    if ((event.key === 'p' || event.key === 'P') && document.querySelector('[data-present]')) present(!on);
    else if (event.key === 'Escape' && event.target && event.target.classList && event.target.classList.contains('term')) {
      // A definition on focus goes away with Esc (WCAG 1.4.13), until the term is left.
      var term = event.target;
      term.classList.add('dismissed');
      term.addEventListener('blur', function () { term.classList.remove('dismissed'); }, { once: true });
    }
    else if (event.key === 'Escape' && on) present(false);
    else if ((event.key === 'd' || event.key === 'D') && on) detail(!root.classList.contains(DETAIL));
    else return;
    event.preventDefault();
  });
  document.addEventListener('fullscreenchange', function () {
    if (!document.fullscreenElement) present(false);
  });
})();
