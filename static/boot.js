// Starts Fencing Lab. A file of its own (rather than the inline loader Trunk
// would write) so the page runs under a Content-Security-Policy that allows
// scripts from its own origin only: script-src 'self' 'wasm-unsafe-eval'.
//
// Five builds of the same app: the race alone (the first page, and
// embed=race, which a phone on a slow network must get quickly), the
// built-in quiz alone (quiz links and embed=quiz, a course page's first
// frame), side by side alone, every other view, and the instructors' views (the question
// builder, and a question or set opened from its link): src/lib.rs
// `entry_point` picks the same. The URL says which view opens; a
// link to another build's view loads the page afresh, and this picks the
// build again.
const BUILDS = {
  race: ['./fencing-lab-race.js', './fencing-lab-race_bg.wasm'],
  quiz: ['./fencing-lab-quiz.js', './fencing-lab-quiz_bg.wasm'],
  compare: ['./fencing-lab-compare.js', './fencing-lab-compare_bg.wasm'],
  lab: ['./fencing-lab-web.js', './fencing-lab-web_bg.wasm'],
  teach: ['./fencing-lab-teach.js', './fencing-lab-teach_bg.wasm'],
};

/** The views a link may name (src/shell/route.rs: `split_query`). */
const VIEWS = ['race', 'compare', 'quiz', 'sweep', 'build', 'explore', 'fleet', 'real'];

/**
 * The view a query opens, as the app decides it (src/shell/route.rs:
 * `split_query` and `view_of`), to the letter: a build started for a view
 * it does not draw could only load itself again.
 */
function viewOf(params) {
  let named;
  for (const [key, name] of params) {
    if (key !== 'view' && key !== 'embed') continue;
    // The lesson is its own static page, whatever else the link names.
    if (name === 'lesson') return 'lesson';
    // "quiz" never overrides a view named before it; any other name does.
    if (name === 'quiz') named ??= 'quiz';
    else if (VIEWS.includes(name)) named = name;
  }
  if (params.has('quiz')) named ??= 'quiz';
  // An instructor's question or set (src/shell/route.rs: View::Ask).
  if ((params.has('ask') || params.has('set')) && (!named || named === 'quiz')) return 'ask';
  return named ?? (params.has('compare') ? 'compare' : 'race');
}

/**
 * Loads and starts a build (once: a module is imported and started once).
 * The wasm's download starts with the script's rather than after it: on a
 * slow network that saves a round trip and the script's own transfer.
 */
function start([script, wasm]) {
  const module_or_path = fetch(new URL(wasm, import.meta.url)).then((response) => (response.ok ? response : Promise.reject(absent(wasm))));
  // A failed download is reported once, by the start it fails.
  module_or_path.catch(() => {});
  return import(script)
    .catch(() => Promise.reject(absent(script)))
    .then((app) => app.default({ module_or_path }).then(() => app));
}

/**
 * A build's file this host does not serve: its wasm answered with an error
 * status, or its script could not be imported (a SCORM package carries only
 * the builds its quiz starts with).
 */
function absent(file) {
  return Object.assign(new Error(`${file} is not on this host`), { absent: true });
}

// The trace's JSON comes from the full build (the race's carries no
// serialiser): loaded on the first request; it sees the page is running
// and does not start a second copy.
let lab;
window.fencingLab = {
  traceJson(query) {
    lab ??= start(BUILDS.lab);
    return lab.then((app) => app.trace_json(query));
  },
};

/** A link's key, as the site computes it (lesson/site/src/first.rs). */
function firstKey(params) {
  // Neither the frame's colours nor the run's fingerprint change the story drawn.
  const pairs = [...params].filter(([name]) => name !== 'theme' && name !== 'fp');
  // Stable, by name (code units, as Rust compares the names' bytes: ASCII).
  pairs.sort((a, b) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0));
  let hash = 0x811c9dc5;
  for (const byte of new TextEncoder().encode(new URLSearchParams(pairs).toString())) {
    hash = Math.imul(hash ^ byte, 0x01000193) >>> 0;
  }
  return hash.toString(16).padStart(8, '0');
}

/**
 * The story before the simulator: the link's first screen, drawn by the
 * app's own components when the site was built, in place of the loading
 * note (the app replaces it in place when it starts). A link the site did
 * not draw keeps the note, with its scenario named.
 */
function showFirstScreen(params) {
  const shelf = document.getElementById('first-screens');
  const loading = document.getElementById('loading');
  if (!shelf || !loading) return;
  const show = (content) => {
    // The app may have started first (a cached simulator): it owns the page.
    if (document.documentElement.hasAttribute('data-fencing-lab') || !loading.isConnected) return;
    const screen = document.createElement('div');
    screen.id = 'first-screen';
    screen.className = 'first-screen';
    screen.setAttribute('aria-busy', 'true');
    screen.append(content);
    // Inline styles as the app sets them, through the CSSOM (a strict CSP
    // refuses style attributes in markup).
    for (const element of screen.querySelectorAll('[data-first-style]')) {
      element.style.cssText = element.dataset.firstStyle;
      element.removeAttribute('data-first-style');
    }
    loading.replaceWith(screen);
  };
  const key = firstKey(params);
  if (key === shelf.dataset.default) {
    show(shelf.content.cloneNode(true));
  } else if (shelf.dataset.keys.split(' ').includes(key)) {
    fetch(`./first/${key}.html?v=${shelf.dataset.version}`)
      .then((response) => (response.ok ? response.text() : Promise.reject(response.status)))
      .then((html) => show(document.createRange().createContextualFragment(html)))
      .catch(() => {});
  } else {
    const names = new Map(shelf.dataset.presets.split('|').map((pair) => pair.split('=')));
    const preset = params.get('preset');
    const name = preset ? names.get(preset) ?? 'a custom scenario' : 'the default scenario';
    loading.textContent = `Loading the simulator for this link (${name})…`;
  }
}

// The lesson and the lease sweep are static pages beside the app: old
// links (?view=lesson, ?embed=sweep) go there without loading the app.
const params = new URLSearchParams(window.location.search);
const view = viewOf(params);
const STATIC = { lesson: 'lesson/index.html', sweep: 'lesson/sweep.html' };
if (STATIC[view]) window.location.replace(STATIC[view] + (params.has('embed') ? `?embed=${view}` : ''));

if (!STATIC[view]) showFirstScreen(params);

// Open edX's JSInput (jsinput=1) may hand the saved state over as soon as
// this page loads, before the app has started: keep it for the app
// (src/teach/lms.rs), which then puts its own functions in place of these.
if (params.get('jsinput') === '1') {
  const held = { state: null };
  window.fencingLabJsinput = held;
  window.setState = (...args) => {
    held.state = String(args[args.length - 1] ?? '');
  };
  window.getState = () => held.state ?? '{"responses":[]}';
  window.getGrade = window.getState;
}

const TEACH = ['build', 'ask'];
// A view with a build of its own; the full build draws it too, and starts
// in its place where the host lacks it.
const ALONE = { race: BUILDS.race, quiz: BUILDS.quiz, compare: BUILDS.compare };
const own = Object.hasOwn(ALONE, view) ? ALONE[view] : undefined;
const alone = () => start(own).catch((error) => (error.absent ? (lab = start(BUILDS.lab)) : Promise.reject(error)));
const build = own ?? (TEACH.includes(view) ? BUILDS.teach : BUILDS.lab);
if (build === BUILDS.lab && !STATIC[view]) lab = start(build);
(STATIC[view] ? Promise.resolve() : lab ?? (own ? alone() : start(build)))
  .catch((error) => {
    const box = document.createElement('p');
    box.className = 'notice';
    box.setAttribute('role', 'alert');
    box.textContent = `Fencing Lab could not start: ${error}. It needs a browser with WebAssembly.`;
    document.body.append(box);
  });
