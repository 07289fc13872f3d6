// The example course page's gradebook: it starts the reporting quizzes with
// this page's origin, and keeps the answers they report (docs/answers.md).
// A message counts only if it comes from one of this page's Fencing Lab
// frames, from the origin that frame was loaded from, and has the documented
// shape; text from a message is only ever put on the page as text.
(function () {
  'use strict';
  var TYPE = 'fencing-lab:statement';
  var VERBS = {
    'http://adlnet.gov/expapi/verbs/answered': 'answered',
    'http://adlnet.gov/expapi/verbs/completed': 'completed',
  };
  var rows = document.getElementById('gradebook-rows');
  var status = document.getElementById('gradebook-status');
  var labs = [];

  // Each reporting frame learns where answers go: this page's origin, added
  // to its link as it is (never re-encoded: a question's link is checksummed).
  // The resize helper loads it once the reader nears it (data-fencing-lab-src).
  var frames = document.querySelectorAll('iframe[data-lab-src]');
  for (var i = 0; i < frames.length; i += 1) {
    var link = frames[i].getAttribute('data-lab-src') + '&origin=' + encodeURIComponent(window.location.origin);
    frames[i].setAttribute('data-fencing-lab-src', link);
    labs.push({ frame: frames[i], origin: new URL(link, window.location.href).origin });
  }

  function english(map) {
    return map && typeof map['en-US'] === 'string' ? map['en-US'] : '';
  }

  /** The statement, if the message is one this page accepts; else null. */
  function statementOf(event) {
    var from = labs.filter(function (lab) { return lab.frame.contentWindow === event.source; })[0];
    if (!from || event.origin !== from.origin) return null;
    var data = event.data;
    if (!data || data.type !== TYPE || typeof data.version !== 'string' || data.version.split('.')[0] !== '1') return null;
    var statement = data.statement;
    if (!statement || !statement.verb || !VERBS[statement.verb.id]) return null;
    if (!statement.object || typeof statement.object.id !== 'string' || !statement.result) return null;
    return statement;
  }

  function cell(row, text) {
    var td = document.createElement('td');
    td.textContent = text;
    row.appendChild(td);
  }

  /** "A's data" for a choice's id, read off the statement's own definition. */
  function answerText(statement) {
    var definition = statement.object.definition || {};
    var response = String(statement.result.response);
    var choices = Array.isArray(definition.choices) ? definition.choices : [];
    var chosen = choices.filter(function (choice) { return choice.id === response; })[0];
    return chosen ? english(chosen.description) : response;
  }

  var count = 0;
  window.addEventListener('message', function (event) {
    var statement = statementOf(event);
    if (!statement) return;
    var row = document.createElement('tr');
    row.setAttribute('data-verb', VERBS[statement.verb.id]);
    cell(row, new Date(statement.timestamp).toLocaleTimeString());
    var result = statement.result;
    if (VERBS[statement.verb.id] === 'completed') {
      cell(row, english(statement.object.definition && statement.object.definition.name));
      cell(row, '—');
      cell(row, 'Completed: ' + result.score.raw + ' of ' + result.score.max + ' right at the first try');
    } else {
      var definition = statement.object.definition || {};
      cell(row, english(definition.description) || statement.object.id);
      cell(row, answerText(statement));
      cell(row, result.success ? '✓ right' : '✗ wrong');
    }
    cell(row, String(result.duration || '').replace(/^PT/, '').toLowerCase());
    rows.appendChild(row);
    count += 1;
    status.textContent = count + (count === 1 ? ' statement' : ' statements') + ' received.';
  });
})();
