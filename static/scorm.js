// The launch page of a Fencing Lab SCORM 1.2 package (scorm.html, written by
// the model: sim/src/scorm). It looks for the LMS's run-time API as the
// SCORM 1.2 run-time asks (up this window's parents, then its opener's),
// frames the quiz with `origin=` set to this page's own origin, and turns the
// statements the quiz reports (docs/instructors.md, "The message") into
// SCORM calls: each answer an interaction, the set's completion the score and
// the status. The quiz, its keys and its marking stay the site's own. With no
// LMS the quiz still runs, and this page says nothing is recorded.
(function () {
  'use strict';
  const STATEMENT = 'fencing-lab:statement';
  const HEIGHT = 'fencing-lab:height';
  const ANSWERED = 'http://adlnet.gov/expapi/verbs/answered';
  const COMPLETED = 'http://adlnet.gov/expapi/verbs/completed';
  const QUESTION_ID = 'urn:fencing-lab:question-id';
  // How many windows up a chain the API is looked for: LMS players nest the
  // content a few frames deep, never dozens.
  const PARENTS_MAX = 7;
  // Interactions written in one session at most: endless retries must not
  // fill the learner's record (an LMS may refuse past a few hundred).
  const INTERACTIONS_MAX = 250;
  // The frame's height as the quiz reports it, kept within these bounds.
  const FRAME_PX_MIN = 320;
  const FRAME_PX_MAX = 20000;
  // A choice's id as SCORM 1.2 writes it: one character, 0-9 then a-z.
  const CHOICE_CHARS = '0123456789abcdefghijklmnopqrstuvwxyz';

  /** The API on `start` or one of its parents, or null. */
  function apiUp(start) {
    let win = start;
    for (let depth = 0; win && depth <= PARENTS_MAX; depth += 1) {
      try {
        if (win.API) return win.API;
      } catch {
        // A window of another origin: its API is not ours to reach; go on up.
      }
      if (win.parent === win) break;
      win = win.parent;
    }
    return null;
  }

  function findApi() {
    const fromParents = window.parent !== window ? apiUp(window.parent) : null;
    return fromParents ?? (window.opener ? apiUp(window.opener) : null);
  }

  const pad = (n, width) => String(n).padStart(width, '0');

  /** A duration in milliseconds as a CMITimespan, HHHH:MM:SS.SS. */
  function timespan(ms) {
    const hundredths = Math.min(Math.max(Math.round(ms / 10), 0), 9999 * 360000 + 359999);
    const hours = Math.floor(hundredths / 360000);
    const minutes = Math.floor(hundredths / 6000) % 60;
    const seconds = Math.floor(hundredths / 100) % 60;
    return `${pad(hours, 4)}:${pad(minutes, 2)}:${pad(seconds, 2)}.${pad(hundredths % 100, 2)}`;
  }

  /** The milliseconds of an xAPI duration as the quiz writes it ("PT6.42S"). */
  function durationMs(text) {
    const match = /^PT(\d+(?:\.\d+)?)S$/.exec(String(text ?? ''));
    return match ? Number(match[1]) * 1000 : 0;
  }

  /** A statement's moment as a CMITime (HH:MM:SS), in the learner's time zone. */
  function clock(timestamp) {
    const at = new Date(timestamp);
    const when = Number.isNaN(at.getTime()) ? new Date() : at;
    return `${pad(when.getHours(), 2)}:${pad(when.getMinutes(), 2)}:${pad(when.getSeconds(), 2)}`;
  }

  /** A response as SCORM 1.2 writes it for the interaction's type. */
  function response(text, type) {
    if (type === 'numeric') return String(text);
    return String(text)
      .split('[,]')
      .map((id) => CHOICE_CHARS[Number(id)] ?? '?')
      .join(',');
  }

  /** An interaction id (CMIIdentifier): letters, digits, '-' and '_', at most 255. */
  function identifier(text) {
    return String(text).replace(/[^A-Za-z0-9_-]/g, '_').slice(0, 255) || 'question';
  }

  const body = document.body;
  const status = document.getElementById('scorm-status');
  const frame = document.getElementById('scorm-quiz');
  const startedMs = Date.now();
  const packageMastery = Number(body.dataset.mastery);
  const say = (text) => {
    status.textContent = text;
  };

  const api = findApi();
  const live = Boolean(api) && String(api.LMSInitialize('')) === 'true';
  const get = (name) => (live ? String(api.LMSGetValue(name) ?? '') : '');
  const set = (name, value) => live && String(api.LMSSetValue(name, String(value))) === 'true';
  const commit = () => live && api.LMSCommit('');

  /** The mastery score: the LMS's own when it has one, else the package's. */
  function mastery() {
    const fromLms = get('cmi.student_data.mastery_score').trim();
    const lms = fromLms === '' ? NaN : Number(fromLms);
    if (Number.isFinite(lms) && lms >= 0 && lms <= 100) return lms;
    return Number.isFinite(packageMastery) ? packageMastery : 80;
  }

  let next = 0;
  if (!api) {
    say('No LMS found (this page was opened outside a course): the quiz runs, but nothing is recorded.');
  } else if (!live) {
    say('The LMS did not start a session: the quiz runs, but nothing is recorded.');
  } else {
    const lesson = get('cmi.core.lesson_status');
    if (lesson === '' || lesson === 'not attempted') set('cmi.core.lesson_status', 'incomplete');
    commit();
    // Interactions are a journal: this session's answers go after earlier ones.
    next = Number.parseInt(get('cmi.interactions._count'), 10) || 0;
    say(`Connected to your course: every answer is recorded, and your score once every question has a first answer (passed at ${mastery()} %).`);
  }

  function record(statement) {
    if (!live || next >= INTERACTIONS_MAX) return;
    const definition = statement.object?.definition ?? {};
    const type = ['choice', 'numeric', 'sequencing'].includes(definition.interactionType) ? definition.interactionType : 'choice';
    const field = `cmi.interactions.${next}.`;
    set(`${field}id`, identifier(definition.extensions?.[QUESTION_ID] ?? `question-${next}`));
    set(`${field}type`, type);
    set(`${field}time`, clock(statement.timestamp));
    set(`${field}student_response`, response(statement.result?.response ?? '', type));
    const pattern = definition.correctResponsesPattern?.[0];
    if (pattern !== undefined) set(`${field}correct_responses.0.pattern`, response(pattern, type));
    set(`${field}result`, statement.result?.success ? 'correct' : 'wrong');
    set(`${field}latency`, timespan(durationMs(statement.result?.duration)));
    next += 1;
    commit();
  }

  function complete(statement) {
    const score = statement.result?.score;
    if (!score || !(Number(score.max) > 0)) return;
    const percent = Math.round((100 * Number(score.raw)) / Number(score.max));
    const pass = mastery();
    const passed = percent >= pass;
    if (live) {
      set('cmi.core.score.min', 0);
      set('cmi.core.score.max', 100);
      set('cmi.core.score.raw', percent);
      set('cmi.core.lesson_status', passed ? 'passed' : 'failed');
      commit();
    }
    const words = `${score.raw} of ${score.max} right at the first try (${percent} %): ${passed ? 'passed' : 'not passed'} (${pass} % needed)`;
    say(live ? `Recorded: ${words}.` : `${words}. Not recorded: no LMS.`);
  }

  let finished = false;
  function finish() {
    if (!live || finished) return;
    finished = true;
    set('cmi.core.session_time', timespan(Date.now() - startedMs));
    commit();
    api.LMSFinish('');
  }
  window.addEventListener('pagehide', finish);
  window.addEventListener('beforeunload', finish);

  window.addEventListener('message', (event) => {
    // Only the quiz this page framed, from this page's own origin.
    if (event.source !== frame.contentWindow || event.origin !== window.location.origin) return;
    const data = event.data;
    if (data?.type === HEIGHT && Number.isFinite(data.height)) {
      frame.style.height = `${Math.min(Math.max(Math.ceil(data.height), FRAME_PX_MIN), FRAME_PX_MAX)}px`;
      return;
    }
    if (data?.type !== STATEMENT || !String(data.version).startsWith('1.')) return;
    const verb = data.statement?.verb?.id;
    if (verb === ANSWERED) record(data.statement);
    else if (verb === COMPLETED) complete(data.statement);
  });

  frame.src = `index.html?${body.dataset.quiz}&origin=${encodeURIComponent(window.location.origin)}`;
})();
