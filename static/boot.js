// Starts Fencing Lab. A file of its own (rather than the inline loader Trunk
// would write) so the page runs under a Content-Security-Policy that allows
// scripts from its own origin only: script-src 'self' 'wasm-unsafe-eval'.
//
// Three builds of the same app: the race alone (the first page, and
// embed=race, which a phone on a slow network must get quickly), every
// other view, and the instructors' views (the question builder, and a
// question or set opened from its link). The URL says which view opens; a
// link to another build's view loads the page afresh, and this picks the
// build again.
const BUILDS = {
  race: ['./fencing-lab-race.js', './fencing-lab-race_bg.wasm'],
  lab: ['./fencing-lab-web.js', './fencing-lab-web_bg.wasm'],
  teach: ['./fencing-lab-teach.js', './fencing-lab-teach_bg.wasm'],
};

/** The view a query opens, as the app decides it (src/route.rs). */
function viewOf(params) {
  const named = params.get('embed') ?? params.get('view');
  // An instructor's question or set (src/route.rs: View::Ask).
  if ((params.has('ask') || params.has('set')) && (!named || named === 'quiz')) return 'ask';
  if (named) return named;
  if (params.has('quiz')) return 'quiz';
  if (params.has('compare')) return 'compare';
  return 'race';
}

/**
 * Loads and starts a build (once: a module is imported and started once).
 * The wasm's download starts with the script's rather than after it: on a
 * slow network that saves a round trip and the script's own transfer.
 */
function start([script, wasm]) {
  const module_or_path = fetch(new URL(wasm, import.meta.url));
  // A failed download is reported once, by the start it fails.
  module_or_path.catch(() => {});
  return import(script).then((app) => app.default({ module_or_path }).then(() => app));
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

// The lesson and the lease sweep are static pages beside the app: old
// links (?view=lesson, ?embed=sweep) go there without loading the app.
const params = new URLSearchParams(window.location.search);
const view = viewOf(params);
const STATIC = { lesson: 'lesson/index.html', sweep: 'lesson/sweep.html' };
if (STATIC[view]) window.location.replace(STATIC[view] + (params.has('embed') ? `?embed=${view}` : ''));

const TEACH = ['build', 'ask'];
const build = view === 'race' ? BUILDS.race : TEACH.includes(view) ? BUILDS.teach : BUILDS.lab;
if (build === BUILDS.lab && !STATIC[view]) lab = start(build);
(STATIC[view] ? Promise.resolve() : lab ?? start(build))
  .catch((error) => {
    const box = document.createElement('p');
    box.className = 'notice';
    box.setAttribute('role', 'alert');
    box.textContent = `Fencing Lab could not start: ${error}. It needs a browser with WebAssembly.`;
    document.body.append(box);
  });
