// The lesson's pages read without this script; with it they gain a theme
// switch, tabs and a copy button for the code, runs that play in place, and
// (inside an iframe) a height report for the course page around them.
(function () {
  'use strict';
  var LANGUAGE_KEY = 'fencing-lab.code-language';

  function stored(key) {
    try {
      return window.localStorage.getItem(key);
    } catch (error) {
      return null;
    }
  }
  function store(key, value) {
    try {
      window.localStorage.setItem(key, value);
    } catch (error) {
      // storage can be forbidden inside an iframe: the choice lasts this page only
    }
  }
  function currentTheme() {
    return document.documentElement.getAttribute('data-theme') || 'auto';
  }

  /** The theme switch is handled by theme.js; here it only shows the choice. */
  function themeSwitch() {
    var select = document.getElementById('theme-choice');
    if (!select) return;
    select.value = document.documentElement.getAttribute('data-theme') || 'auto';
    select.closest('label').hidden = false;
  }

  function codeTabs() {
    var panel = document.querySelector('[data-code-panel]');
    if (!panel) return;
    var listings = Array.prototype.slice.call(panel.querySelectorAll('.code-listing'));
    var tabs = document.createElement('div');
    tabs.className = 'code-tabs';
    tabs.setAttribute('role', 'group');
    tabs.setAttribute('aria-label', 'Language');
    var buttons = listings.map(function (listing) {
      var button = document.createElement('button');
      button.type = 'button';
      button.textContent = listing.querySelector('.code-title').firstChild.textContent.trim();
      button.setAttribute('data-testid', 'code-' + listing.dataset.lang);
      button.addEventListener('click', function () {
        choose(listing.dataset.lang);
        store(LANGUAGE_KEY, listing.dataset.lang);
      });
      tabs.appendChild(button);
      var copy = document.createElement('button');
      copy.type = 'button';
      copy.textContent = 'Copy';
      var status = document.createElement('span');
      status.setAttribute('role', 'status');
      copy.addEventListener('click', function () {
        var text = listing.querySelector('pre').textContent;
        var done = function (ok) {
          status.textContent = ok ? 'Code copied.' : 'Copying is not allowed here: select the code and copy it.';
        };
        if (navigator.clipboard) navigator.clipboard.writeText(text).then(function () { done(true); }, function () { done(false); });
        else done(false);
      });
      var actions = listing.querySelector('.code-actions');
      actions.insertBefore(copy, actions.firstChild);
      actions.appendChild(status);
      return button;
    });
    panel.insertBefore(tabs, panel.firstChild);
    function choose(lang) {
      listings.forEach(function (listing, index) {
        var chosen = listing.dataset.lang === lang;
        listing.hidden = !chosen;
        buttons[index].setAttribute('aria-pressed', String(chosen));
      });
    }
    var saved = stored(LANGUAGE_KEY);
    choose(listings.some(function (listing) { return listing.dataset.lang === saved; }) ? saved : listings[0].dataset.lang);
  }

  function runsInPlace() {
    Array.prototype.forEach.call(document.querySelectorAll('figure[data-embed]'), function (figure) {
      var button = document.createElement('button');
      button.type = 'button';
      button.className = 'run-here';
      button.setAttribute('aria-expanded', 'false');
      button.textContent = '▶ Play it here';
      button.addEventListener('click', function () {
        var frame = figure.querySelector('iframe');
        if (frame) {
          frame.remove();
          button.setAttribute('aria-expanded', 'false');
          button.textContent = '▶ Play it here';
          return;
        }
        frame = document.createElement('iframe');
        frame.src = figure.dataset.embed + '&theme=' + currentTheme();
        frame.title = 'Fencing Lab: ' + figure.dataset.title;
        frame.className = 'lesson-widget';
        frame.style.height = figure.dataset.height + 'px';
        figure.appendChild(frame);
        button.setAttribute('aria-expanded', 'true');
        button.textContent = 'Hide the run';
      });
      figure.insertBefore(button, figure.firstChild.nextSibling);
    });
  }

  function reportHeight() {
    if (!document.documentElement.classList.contains('embedded') || window.parent === window) return;
    var post = function () {
      window.parent.postMessage({ type: 'fencing-lab:height', height: document.documentElement.scrollHeight }, '*');
    };
    new ResizeObserver(post).observe(document.body);
  }

  /** On a narrow screen the contents fold away, so the section comes first. */
  function foldContents() {
    var contents = document.querySelector('details.lesson-toc');
    if (contents && window.matchMedia('(max-width: 60rem)').matches) contents.open = false;
  }

  foldContents();
  themeSwitch();
  codeTabs();
  runsInPlace();
  reportHeight();
})();
